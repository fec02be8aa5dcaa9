//! A consumer of other plugins' APIs: `examples.trip` asks `examples.units` (in another
//! runner) to convert distances through `api.call`, and its `trip_api` tool calls any API by
//! name, reporting the answer or the host's refusal: a private API, a platform adapter's API
//! (maitool has none), an unknown one.

use maitool_sdk::api::ApiCallError;
use maitool_sdk::prelude::*;

/// Arguments of `trip_length`.
#[maitool_sdk::args]
struct Legs {
    /// Lengths of the legs, in kilometres.
    legs_km: Vec<f64>,
}

/// Arguments of `trip_api`.
#[maitool_sdk::args]
struct Probe {
    /// The API: a short name or `plugin_id.name`, optionally with `@version`.
    api_name: String,
    /// Its arguments.
    #[serde(default)]
    args: Option<Value>,
}

/// Arguments of `trip_apis`: none.
#[maitool_sdk::args]
struct NoArgs {}

fn main() {
    maitool_sdk::run([trip()]);
}

/// The plugin, apart from `main` so that its tests run it in-process.
fn trip() -> Plugin {
    Plugin::new("examples.trip", "1.0.0")
        .name("Trip")
        .description("Adds up a trip in miles through examples.units' conversion API.")
        .capability("api.call")
        .capability("api.get")
        .capability("api.list")
        .tool(
            Tool::new(
                "trip_length",
                "The length of a trip of several legs, in miles.",
                |legs: Legs, ctx: ToolContext| async move {
                    let km: f64 = legs.legs_km.iter().sum();
                    let miles = ctx
                        .api()
                        .call(
                            "units.convert",
                            json!({ "value": km, "from": "km", "to": "mi" }),
                        )
                        .await?;
                    let miles = miles["value"].as_f64().unwrap_or_default();
                    Ok(ToolOutput::text(format!("{miles:.1} mi"))
                        .with_structured(json!({ "km": km, "miles": miles })))
                },
            )
            .core_tool(),
        )
        .tool(Tool::new(
            "trip_api",
            "Calls an API by name and reports its answer or why the host refused it.",
            |probe: Probe, ctx: ToolContext| async move {
                let args = probe.args.unwrap_or_else(|| json!({}));
                let report = match ctx.api().call(&probe.api_name, args).await {
                    Ok(result) => json!({ "ok": true, "result": result }),
                    Err(ApiCallError::Failed(error)) => json!({ "ok": false, "error": error }),
                    Err(err) => return Err(ToolError::new(err.to_string())),
                };
                Ok(ToolOutput::text(report.to_string()).with_structured(report))
            },
        ))
        .tool(Tool::new(
            "trip_apis",
            "The APIs this plugin can call, and what api.get says of units.convert.",
            |_: NoArgs, ctx: ToolContext| async move {
                let listed: Vec<Value> = ctx
                    .api()
                    .list("")
                    .await?
                    .into_iter()
                    .map(|api| json!([api["plugin_id"], api["name"], api["version"]]))
                    .collect();
                let convert = ctx.api().get("units.convert").await?;
                let report = json!({ "listed": listed, "convert": convert });
                Ok(ToolOutput::text(report.to_string()).with_structured(report))
            },
        ))
}

#[cfg(test)]
mod tests;
