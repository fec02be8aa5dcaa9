//! Plugin APIs: declaring one ([`Api`], MaiBot's `@API`) and calling another plugin's
//! ([`ApiClient`], MaiBot's `ctx.api`).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::JsonObject;
use maitool_protocol::api::{API_TYPE, DEFAULT_VERSION};
use maitool_protocol::wire::methods::ComponentDeclaration;
use maitool_runner::{ApiComponent, InvocationContext};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::config::ConfigSlot;
use crate::{HostClient, HostError, PluginContext, ToolError};

type ErasedApiHandler =
    dyn Fn(JsonObject, PluginContext) -> BoxFuture<'static, Result<Value, String>> + Send + Sync;

/// An API this plugin offers other plugins, which call it with `api.call` (MaiBot's `@API`).
///
/// The host keys it as MaiBot does: the plugin, the name (dots allowed, e.g.
/// `units.convert`) and a version (default `1`). A private API (the default) may be called
/// by its own plugin only; a [`public`](Self::public) one by any plugin the operator grants
/// `api.call`, in any runner, MaiBot's or maitool's.
///
/// ```
/// use maitool_sdk::prelude::*;
/// use maitool_sdk::api::Api;
///
/// #[derive(Deserialize)]
/// #[serde(crate = "maitool_sdk::serde")]
/// struct Convert {
///     metres: f64,
/// }
///
/// let convert = Api::new(
///     "units.to_feet",
///     "Metres to feet.",
///     |args: Convert, _ctx: PluginContext| async move {
///         Ok(json!({ "feet": args.metres / 0.3048 }))
///     },
/// )
/// .public();
/// let plugin = Plugin::new("examples.units", "1.0.0").api(convert);
/// # let _ = plugin;
/// ```
pub struct Api {
    name: String,
    description: String,
    version: String,
    public: bool,
    timeout: Option<Duration>,
    handler: Arc<ErasedApiHandler>,
}

impl std::fmt::Debug for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Api")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl Api {
    /// A private API, version 1, whose arguments (the caller's `args` object) are
    /// deserialized into `A`; the handler's value is the caller's result. Arguments that do
    /// not fit `A`, and the handler's error, fail the call with that message.
    pub fn new<A, R, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Self
    where
        A: DeserializeOwned + Send + 'static,
        R: Serialize + Send + 'static,
        F: Fn(A, PluginContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, ToolError>> + Send + 'static,
    {
        let name = name.into();
        let handler = Arc::new(handler);
        let erased: Arc<ErasedApiHandler> = Arc::new(move |args: JsonObject, ctx| {
            let handler = Arc::clone(&handler);
            async move {
                let args: A = serde_json::from_value(Value::Object(args))
                    .map_err(|err| format!("invalid arguments: {err}"))?;
                let value = handler(args, ctx).await.map_err(|err| err.to_string())?;
                serde_json::to_value(value).map_err(|err| format!("unserializable result: {err}"))
            }
            .boxed()
        });
        Api {
            name,
            description: description.into(),
            version: DEFAULT_VERSION.to_owned(),
            public: false,
            timeout: None,
            handler: erased,
        }
    }

    /// Lets every plugin call it (the default: only this plugin).
    pub fn public(mut self) -> Self {
        self.public = true;
        self
    }

    /// Its version (default `1`); callers may ask for one with `name@version`.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// How long a call may take (default: the host's tool timeout).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The name `plugin.invoke_api` names it by: unique per name and version.
    fn handler_name(&self) -> String {
        format!("api__{}__{}", self.name, self.version)
    }

    pub(crate) fn declaration(&self, plugin_id: &str) -> (ComponentDeclaration, String) {
        let handler_name = self.handler_name();
        let mut metadata = JsonObject::new();
        metadata.insert("description".into(), self.description.clone().into());
        metadata.insert("version".into(), self.version.clone().into());
        metadata.insert("public".into(), self.public.into());
        metadata.insert("handler_name".into(), handler_name.clone().into());
        if let Some(timeout) = self.timeout {
            metadata.insert("timeout_ms".into(), (timeout.as_millis() as u64).into());
        }
        let declaration = ComponentDeclaration {
            name: self.name.clone(),
            component_type: API_TYPE.to_owned(),
            plugin_id: plugin_id.to_owned(),
            metadata,
            ..ComponentDeclaration::default()
        };
        (declaration, handler_name)
    }

    pub(crate) fn into_component(self, config: Arc<ConfigSlot>) -> Arc<dyn ApiComponent> {
        Arc::new(RunApi {
            handler: self.handler,
            config,
        })
    }
}

struct RunApi {
    handler: Arc<ErasedApiHandler>,
    config: Arc<ConfigSlot>,
}

impl ApiComponent for RunApi {
    fn call(
        &self,
        args: JsonObject,
        ctx: InvocationContext,
    ) -> BoxFuture<'static, Result<Value, String>> {
        let context = PluginContext::new(
            HostClient::new(ctx.host),
            Arc::clone(&self.config),
            ctx.data_dir,
        );
        (self.handler)(args, context)
    }
}

/// Why a call of another plugin's API failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ApiCallError {
    /// The API could not be called or failed: not found, private, offline, a platform
    /// adapter's API (maitool has none), bad arguments, or its handler's own error. The
    /// message is the host's `error`.
    #[error("{0}")]
    Failed(String),
    /// The capability call itself failed: `api.call` not granted
    /// ([`HostError::Denied`]), or the host went away.
    #[error(transparent)]
    Host(#[from] HostError),
}

/// Another plugin's APIs, through the host (`api.*` capabilities): get one from
/// [`HostClient::api`], [`ToolContext::api`](crate::ToolContext::api) or
/// [`PluginContext::api`].
///
/// Declare `.capability("api.call")` (and `api.get`, `api.list` if used); the operator
/// grants them.
///
/// ```
/// use maitool_sdk::prelude::*;
/// use maitool_sdk::api::ApiCallError;
///
/// async fn feet(ctx: &ToolContext, metres: f64) -> Result<f64, ApiCallError> {
///     let answer = ctx.api().call("units.to_feet", json!({ "metres": metres })).await?;
///     Ok(answer["feet"].as_f64().unwrap_or_default())
/// }
/// ```
#[derive(Debug, Clone)]
pub struct ApiClient {
    host: HostClient,
}

impl ApiClient {
    pub(crate) fn new(host: HostClient) -> Self {
        Self { host }
    }

    /// Calls the API `name` (a short name, `plugin_id.name`, either with `@version`) with
    /// `args` (anything that serializes to a JSON object); returns its result.
    pub async fn call(&self, name: &str, args: impl Serialize) -> Result<Value, ApiCallError> {
        self.call_version(name, "", args).await
    }

    /// [`call`](Self::call) of one version of the API.
    pub async fn call_version(
        &self,
        name: &str,
        version: &str,
        args: impl Serialize,
    ) -> Result<Value, ApiCallError> {
        let args = serde_json::to_value(args).map_err(|err| {
            ApiCallError::Failed(format!("arguments of API {name} do not serialize: {err}"))
        })?;
        let mut answer = self
            .host
            .call(
                "api.call",
                json!({ "api_name": name, "version": version, "args": args }),
            )
            .await?;
        if answer.get("success") == Some(&Value::Bool(true)) {
            return Ok(answer
                .get_mut("result")
                .map(Value::take)
                .unwrap_or(Value::Null));
        }
        let error = answer
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("the API call failed");
        Err(ApiCallError::Failed(error.to_owned()))
    }

    /// The API `name` as the host describes it (`name`, `plugin_id`, `version`, `public`,
    /// ...), or `None` when this plugin can call no such API (`api.get`).
    pub async fn get(&self, name: &str) -> Result<Option<Value>, HostError> {
        let answer = self
            .host
            .call("api.get", json!({ "api_name": name }))
            .await?;
        Ok(answer.get("api").filter(|api| !api.is_null()).cloned())
    }

    /// Every API this plugin can call, of one provider when `plugin_id` is not empty
    /// (`api.list`).
    pub async fn list(&self, plugin_id: &str) -> Result<Vec<Value>, HostError> {
        let answer = self
            .host
            .call("api.list", json!({ "plugin_id": plugin_id }))
            .await?;
        Ok(answer
            .get("apis")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default())
    }
}
