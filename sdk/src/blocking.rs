//! Tools whose handler blocks: run on the blocking pool, off the runner's async thread.

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::ToolExecutionResult;
use maitool_protocol::wire::EncodedValue;

use crate::arguments::ArgumentDecoder;
use crate::output::OutputType;
use crate::schema::schema_for;
use crate::tool::outcome_result;
use crate::{Tool, ToolContext, ToolError, ToolOutput};

impl Tool {
    /// A tool whose handler is ordinary blocking code: it runs on tokio's blocking pool
    /// ([`run_blocking`](crate::run_blocking)), so a long computation, `std::thread::sleep` or
    /// blocking I/O does not stall the runner's other calls or its health checks.
    ///
    /// Arguments, schema and options work as with [`Tool::new`]. Inside the handler, call
    /// host capabilities by blocking on them:
    /// `tokio::runtime::Handle::current().block_on(ctx.host().call(...))` (allowed on the
    /// blocking pool). A panic fails the call, as in any handler. The handler runs to its end
    /// even if the host gave up waiting (its `timeout`): blocking code cannot be interrupted.
    ///
    /// ```
    /// use maitool_sdk::prelude::*;
    ///
    /// /// Arguments of `checksum`.
    /// #[derive(Deserialize, JsonSchema)]
    /// # #[serde(crate = "maitool_sdk::serde")]
    /// # #[schemars(crate = "maitool_sdk::schemars")]
    /// struct ChecksumArgs {
    ///     /// How many rounds to hash.
    ///     rounds: u64,
    /// }
    ///
    /// let tool = Tool::blocking("checksum", "CPU-heavy checksum", |args: ChecksumArgs, _ctx| {
    ///     let sum = (0..args.rounds).fold(0u64, |acc, n| acc.wrapping_mul(31).wrapping_add(n));
    ///     Ok(ToolOutput::text(sum.to_string()))
    /// });
    /// # let _ = Plugin::new("examples.checksum", "1.0.0").tool(tool);
    /// ```
    pub fn blocking<A, F>(
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Tool
    where
        A: crate::ToolArgs,
        F: Fn(A, ToolContext) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    {
        let name = name.into();
        let schema = schema_for::<A>();
        let arguments = ArgumentDecoder::new(&name, &schema);
        let handler = Arc::new(handler);
        let erased = move |args: EncodedValue,
                           ctx: ToolContext,
                           name: Arc<str>,
                           declared: Option<OutputType>|
              -> BoxFuture<'static, ToolExecutionResult> {
            match arguments.decode::<A>(&args) {
                Ok(parsed) => {
                    let handler = Arc::clone(&handler);
                    async move {
                        let outcome =
                            maitool_runner::run_blocking(move || handler(parsed, ctx)).await;
                        outcome_result(outcome, &name, declared)
                    }
                    .boxed()
                }
                Err(err) => std::future::ready(outcome_result(Err(err), &name, None)).boxed(),
            }
        };
        Tool::with_handler(name, description.into(), schema, Arc::new(erased))
    }
}
