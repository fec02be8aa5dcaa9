//! Plugin APIs across runners, under a real `maitool serve`: the Rust example plugins
//! `examples.units` (provider) and `examples.trip` (consumer), and MaiBot plugins under
//! MaiBot's real runner (`tests/maibot-fixtures`), the provider and the consumer in runners
//! of their own. Every direction talks: Rust to Rust, Rust to MaiBot, MaiBot to Rust, MaiBot
//! to MaiBot, a dynamic API; `api.list` and `api.get` show what a plugin may call; a private
//! API and a platform adapter's API are refused in MaiBot's `{success: false, error}`, so
//! the plugin's fallback runs; a missing grant is `E_CAPABILITY_DENIED`.
//!
//! Skips loudly without MaiBot's runner, except under `MAITOOL_REQUIRE_MAIBOT=1` (CI).

mod hooks_support;

use hooks_support::World;
use maitool_e2e::maibot::maibot_python;
use serde_json::{Value, json};

const PROVIDER: &str = "fixtures.maibot_api_provider";
const CONSUMER: &str = "fixtures.maibot_api_consumer";

fn grants(consumer: &str, trip: &str) -> Vec<(&'static str, String)> {
    let table = |plugin: &str, grants: &str| {
        format!("[runners.plugins.\"{plugin}\"]\ncapabilities = [{grants}]")
    };
    vec![
        ("units", table("examples.units", "\"api.call\"")),
        ("trip", table("examples.trip", trip)),
        ("maibot-provider", table(PROVIDER, "\"api.call\"")),
        ("maibot-consumer", table(CONSUMER, consumer)),
    ]
}

fn world(python: &std::path::Path) -> World {
    World::new(
        python,
        &[
            ("maibot-provider", &["api_provider"]),
            ("maibot-consumer", &["api_consumer"]),
        ],
        &grants("\"api.*\", \"send.text\"", "\"api.*\""),
    )
}

/// `trip_api`'s report of calling `api_name` with `args`.
fn trip_api(world: &World, api_name: &str, args: Value) -> Value {
    let (code, result) = world.call("trip_api", &json!({"api_name": api_name, "args": args}));
    assert_eq!(code, 0, "{result}");
    result["structured_content"].clone()
}

/// What the MaiBot consumer's SDK handed it for `api.call(api_name, **args)`.
fn consume(world: &World, api_name: &str, args: Value) -> Value {
    world.report(
        "consume_api",
        &json!({"api_name": api_name, "args_json": args.to_string()}),
    )
}

#[test]
fn providers_and_consumers_in_different_runners_talk() {
    let Some(python) = maibot_python() else {
        return;
    };
    let world = world(&python);
    let _serve = world.serve();

    // Rust to Rust: trip asks units (another runner) to convert.
    let (code, trip) = world.call("trip_length", &json!({"legs_km": [1.609344, 3.218688]}));
    assert_eq!((code, &trip["content"]), (0, &json!("3.0 mi")), "{trip}");
    // Rust to MaiBot.
    assert_eq!(
        trip_api(&world, "weather.today", json!({"city": "Lisbon"})),
        json!({"ok": true, "result": {"city": "Lisbon", "forecast": "sunny"}})
    );
    // MaiBot to Rust.
    assert_eq!(
        consume(
            &world,
            "units.convert",
            json!({"value": 2, "from": "km", "to": "m"})
        ),
        json!({"answer": {"value": 2000.0, "unit": "m"}})
    );
    // MaiBot to MaiBot, by full name and version too.
    assert_eq!(
        consume(&world, "weather.today", json!({"city": "Oslo"})),
        json!({"answer": {"city": "Oslo", "forecast": "sunny"}})
    );
    assert_eq!(
        consume(
            &world,
            &format!("{PROVIDER}.weather.today@1"),
            json!({"city": "Pisa"})
        ),
        json!({"answer": {"city": "Pisa", "forecast": "sunny"}})
    );
    // A dynamic API, whose handler learns which API it was called as.
    assert_eq!(
        consume(&world, "weather.live", json!({"city": "Rome"})),
        json!({"answer": {"live": true, "called_as": "weather.live", "city": "Rome"}})
    );
    // The API's own failure reaches the caller as MaiBot's failed call.
    assert_eq!(
        consume(&world, "weather.today", json!({"city": "atlantis"})),
        json!({"answer": {"success": false, "error": "no weather station in atlantis"}})
    );
    // A plugin calls its own private API.
    let (code, own) = world.call("weather_self_check", &json!({}));
    assert_eq!(
        (code, &own["content"]),
        (0, &json!("the secret forecast")),
        "{own}"
    );
    let (code, own) = world.call("units_self_check", &json!({}));
    assert_eq!((code, &own["content"]), (0, &json!("4 units")), "{own}");

    // An API is not a tool, and a call of it as one says what it is.
    let (code, refused) = world.call("weather.today", &json!({}));
    assert_eq!(code, 1);
    assert_eq!(
        refused["error_message"],
        "weather.today is not a tool: it is fixtures.maibot_api_provider.weather.today@1, a \
         public API: any plugin granted api.call may call it; plugins call APIs with api.call"
    );

    // `maitool plugins` shows each API with who may call it.
    let plugins = world.json(&["plugins", "--json"]);
    let provider = plugins
        .as_array()
        .unwrap()
        .iter()
        .find(|plugin| plugin["id"] == PROVIDER)
        .unwrap();
    let apis: Vec<(&str, &str)> = provider["components"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["component_type"] == "API")
        .map(|c| {
            (
                c["full_name"].as_str().unwrap(),
                c["detail"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        apis.contains(&(
            "fixtures.maibot_api_provider.weather.secret@1",
            "private API: only its own plugin may call it"
        )),
        "{apis:?}"
    );
    assert!(
        apis.iter()
            .any(|(name, detail)| name.ends_with("weather.live@1")
                && *detail == "dynamic public API: any plugin granted api.call may call it"),
        "{apis:?}"
    );
}

#[test]
fn listings_refusals_and_the_adapter_fallback() {
    let Some(python) = maibot_python() else {
        return;
    };
    let world = world(&python);
    let _serve = world.serve();

    let listing = world.report("consume_listing", &json!({}));
    assert_eq!(
        listing["listed"],
        json!([
            "examples.units:units.convert@1",
            "fixtures.maibot_api_provider:weather.live@1",
            "fixtures.maibot_api_provider:weather.today@1"
        ])
    );
    assert_eq!(listing["today_public"], true);
    assert_eq!(listing["secret"], Value::Null);
    let (code, apis) = world.call("trip_apis", &json!({}));
    assert_eq!(code, 0, "{apis}");
    let apis = &apis["structured_content"];
    assert_eq!(apis["listed"].as_array().unwrap().len(), 3, "{apis}");
    assert_eq!(apis["convert"]["plugin_id"], "examples.units");
    assert_eq!(apis["convert"]["public"], true);

    // Private APIs: refused to other plugins, whichever runner asks.
    let private = "API weather.secret is private to plugin fixtures.maibot_api_provider: other \
                   plugins may not call it";
    assert_eq!(
        trip_api(&world, "weather.secret", json!({})),
        json!({"ok": false, "error": private})
    );
    assert_eq!(
        consume(&world, "weather.secret", json!({})),
        json!({"answer": {"success": false, "error": private}})
    );
    assert_eq!(
        trip_api(&world, "units.table", json!({}))["error"],
        "API units.table is private to plugin examples.units: other plugins may not call it"
    );
    assert_eq!(
        trip_api(&world, "no.such.api", json!({}))["error"],
        "API no.such.api not found (api.list shows the APIs this plugin can call)"
    );

    // The QQ adapter's APIs: refused naming the adapter, in the shape MaiBot answers a failed
    // call, so the plugin's own fallback (send.text) runs.
    let notified = world.report("notify_group", &json!({"text": "game night at 8"}));
    assert_eq!(notified["fell_back"], true, "{notified}");
    let error = notified["error"].as_str().unwrap();
    assert!(
        error.starts_with(
            "API adapter.napcat.message.send_msg belongs to the napcat platform adapter \
             (maibot-team.napcat-adapter or maibot-team.snowluma-adapter), which maitool does \
             not have"
        ),
        "{error}"
    );
    let recent = world.json(&[
        "call",
        "fetch_history",
        "--args",
        "{}",
        "--session-id",
        "s1",
        "--stream-id",
        "st1",
        "--json",
    ]);
    assert!(recent.to_string().contains("game night at 8"), "{recent}");
    let refused = trip_api(
        &world,
        "maibot-team.napcat-adapter.adapter.napcat.account.get_cookies",
        json!({"domain": "qzone.qq.com"}),
    );
    assert_eq!(refused["ok"], false);
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("belongs to the napcat adapter plugin maibot-team.napcat-adapter"),
        "{refused}"
    );
}

#[test]
fn a_plugin_not_granted_api_call_is_denied() {
    let Some(python) = maibot_python() else {
        return;
    };
    let world = world(&python);
    world.write_config(&grants("\"api.list\", \"api.get\"", "\"api.get\""));
    // One-shot hosts: no serve needed.
    let (code, trip) = world.call("trip_length", &json!({"legs_km": [1.0]}));
    assert_eq!(code, 1, "{trip}");
    let error = trip["error_message"].as_str().unwrap();
    assert!(
        error.contains("E_CAPABILITY_DENIED")
            && error.contains("plugin examples.trip is not granted capability api.call"),
        "{error}"
    );
    let raised = consume(&world, "weather.today", json!({}));
    let raised = raised["raised"].as_str().unwrap();
    assert!(
        raised.contains("E_CAPABILITY_DENIED")
            && raised.contains("is not granted capability api.call"),
        "{raised}"
    );
    // What the grants allow still works.
    let listing = world.report("consume_listing", &json!({}));
    assert_eq!(
        listing["listed"].as_array().map(Vec::len),
        Some(3),
        "{listing}"
    );
}
