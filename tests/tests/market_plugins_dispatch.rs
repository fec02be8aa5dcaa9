//! The market plugins' commands, event handlers, hooks and plugin APIs under maitool, as
//! under MaiBot: chat messages handed to the host with `maitool message` reach the commands
//! they match (with their pattern's groups, and state kept between them), what the commands
//! send lands in the chat's history, an event handler sees group messages and does its work,
//! a hook handler answers the commands it registered, the hooks an engine runs at its own
//! points (`maitool hook`) rewrite the planner's request, and the QQ adapter's APIs a plugin
//! calls are refused with the adapter named, while the plugin's own fallback runs.
//!
//! Same fixture and environment as `market_plugins.rs` (see `market_support`).

mod maibot_support;
mod market_support;

use std::time::Duration;

use market_support::servers::Servers;
use market_support::{Market, Serve, plugin_logs, shared_env, text};
use serde_json::{Value, json};

/// `maitool message TEXT` from `u-alice` (Alice) in group `10001`'s chat `st1` on `qq`; the
/// outcome. A command that failed makes it exit 1.
fn message(market: &Market, text: &str) -> Value {
    message_from(market, "u-alice", text).1
}

/// `maitool message TEXT` from `user`; (exit code, outcome).
fn message_from(market: &Market, user: &str, text: &str) -> (i32, Value) {
    let (code, out, err) = market.run(&[
        "message",
        text,
        "--stream-id",
        "st1",
        "--user-id",
        user,
        "--user-name",
        if user == "u-alice" { "Alice" } else { user },
        "--group-id",
        "10001",
        "--platform",
        "qq",
        "--json",
    ]);
    let outcome: Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("no JSON ({e}): {out}\n{err}"));
    let failed = outcome["command"]["success"] == false;
    assert_eq!(
        code,
        i32::from(failed),
        "maitool message {text:?}: {out}\n{err}"
    );
    (code, outcome)
}

/// The texts plugins sent while a message was processed.
fn sent(outcome: &Value) -> Vec<String> {
    outcome["sent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["text"].as_str().unwrap().to_owned())
        .collect()
}

/// The chat's last messages, through the built-in `fetch_history` (focus mode).
fn history(market: &Market) -> String {
    let (code, result) = market.call("fetch_history", r#"{"num": 20}"#);
    assert_eq!(code, 0, "{result}");
    result.to_string()
}

/// Waits until serve logged a message containing `needle`.
fn wait_log(serve: &Serve, needle: &str) {
    maitool_e2e::eventually(
        &format!("a log line with {needle:?}"),
        Duration::from_secs(20),
        || !plugin_logs(serve, needle).is_empty(),
    );
}

/// The weather plugin's AMap key.
const WEATHER_KEY: &str = "[runners.plugins.\"whitefox.weather-forecast\"]\n\
                           config = { weather = { amap_key = \"amap-test-key\" } }\n";

#[test]
fn market_commands_run_from_maitool_message_with_their_groups_and_state_and_replies_land_in_history()
 {
    let Some(env) = shared_env() else {
        return;
    };
    let market = Market::new(&env, WEATHER_KEY);
    let serve = market.serve();

    // weather-forecast's /天气: its pattern's named group, its own network step (AMap), and
    // the text it sent.
    let weather = message(&market, "/天气 北京");
    let command = &weather["command"];
    assert_eq!(
        command["full_name"], "whitefox.weather-forecast.weather_query_cmd",
        "{weather}"
    );
    assert_eq!(command["matched_groups"]["location"], "北京", "{weather}");
    assert_eq!(command["ran"], true, "{weather}");
    assert_eq!(command["intercepted"], true, "{weather}");
    assert_eq!(sent(&weather), ["未找到「北京」对应的地区"], "{weather}");
    wait_log(&serve, "请求行政区划API失败(北京)");

    // c-daily-problem: a problem from its bank, its answer revealed, then submitted: the
    // plugin keeps the chat's current problem between commands.
    let problem = message(&market, "/每日一题");
    assert_eq!(
        problem["command"]["full_name"], "E33EPUS.c-daily-problem.daily_problem",
        "{problem}"
    );
    let shown = sent(&problem).join("\n");
    assert!(
        shown.starts_with("📝 编程一题 | 📅") && shown.contains("💡 /答 ＜答案＞ 提交"),
        "{shown}"
    );
    let revealed = sent(&message(&market, "/答案")).join("\n");
    let answer = revealed
        .lines()
        .find_map(|line| line.strip_prefix("✅ 答案："))
        .unwrap_or_else(|| panic!("no answer line: {revealed}"))
        .to_owned();
    let right = message(&market, &format!("/答 {answer}"));
    assert_eq!(
        right["command"]["matched_groups"]["answer"],
        answer.as_str()
    );
    assert!(
        sent(&right)[0].starts_with("@u-alice ✅ 完全正确！"),
        "{right}"
    );
    let wrong = message(&market, "/答 不是这个");
    assert!(
        sent(&wrong)[0].starts_with("@u-alice ❌ 不对喵~"),
        "{wrong}"
    );

    // impression-card's help command.
    let help = message(&market, "/印象卡片帮助");
    assert_eq!(
        help["command"]["full_name"], "com.0-hz.impression-card.impression_card_help",
        "{help}"
    );
    assert!(!sent(&help).is_empty(), "{help}");

    // mai-love's status command (a command named with a slash, as MaiBot allows).
    let status = message(&market, "/mai_status");
    assert_eq!(
        status["command"]["full_name"], "maibot-community.mai-love./mai_status",
        "{status}"
    );
    assert!(sent(&status)[0].contains("好感度"), "{status}");

    // A message no command matches goes on and is stored.
    let plain = message(&market, "今天天气不错");
    assert_eq!(plain["command"], Value::Null, "{plain}");
    assert_eq!(plain["stored"], true, "{plain}");

    // What the commands sent is in the chat's history, with the messages themselves.
    let history = history(&market);
    for expected in [
        "/天气 北京",
        "未找到「北京」对应的地区",
        "❌ 不对喵~",
        "今天天气不错",
    ] {
        assert!(history.contains(expected), "{expected:?} not in {history}");
    }
}

#[test]
fn custom_commands_are_added_by_a_command_and_answered_by_the_plugins_receive_hook() {
    let Some(env) = shared_env() else {
        return;
    };
    let admins = "[runners.plugins.\"TAIY2020.custom-commands-plugin\"]\n\
                  config = { settings = { admin_user_ids = [\"u-alice\"] } }\n";
    let market = Market::new(&env, admins);
    let serve = market.serve();
    let id = "TAIY2020.custom-commands-plugin";

    // `.问：TRIGGER答：REPLY` is one of its commands (the prefix is its configuration's), for
    // the admins its configuration names.
    let (code, refused) = message_from(&market, "u-bob", ".问：早上好答：早呀");
    assert_eq!(code, 1, "{refused}");
    assert_eq!(
        sent(&refused),
        ["❌ 你没有权限执行此管理员命令"],
        "{refused}"
    );
    let added = message(&market, ".问：早上好答：早呀，今天也要加油");
    assert_eq!(
        added["command"]["full_name"],
        format!("{id}.custom_command_add"),
        "{added}"
    );
    assert_eq!(added["command"]["matched_groups"]["trigger"], "早上好");
    assert!(!sent(&added).is_empty(), "a confirmation: {added}");

    // `.早上好` matches no declared command: the plugin's blocking hook on
    // chat.receive.after_process answers it and aborts the rest of the flow.
    let answered = message(&market, ".早上好");
    assert_eq!(sent(&answered), ["早呀，今天也要加油"], "{answered}");
    assert_eq!(answered["stopped"]["at"], "chat.receive.after_process");
    assert_eq!(
        answered["stopped"]["by"],
        format!("{id}.custom_command_dynamic_dispatcher")
    );
    assert_eq!(answered["command"], Value::Null, "{answered}");

    // `.列表` sends the list as a forwarded bundle through the QQ adapter's API, which maitool
    // refuses naming the adapter; the plugin falls back to plain text, as it does under a
    // MaiBot without Napcat.
    let listed = message(&market, ".列表");
    assert!(
        sent(&listed).join("\n").contains("早上好"),
        "the plain-text fallback lists the trigger: {listed}"
    );
    let refused = plugin_logs(&serve, "获取 bot 登录信息失败");
    assert!(
        refused.iter().any(|line| line.contains("napcat")),
        "the refusal names the adapter: {refused:?}"
    );

    // Deleted, the trigger no longer answers.
    let deleted = message(&market, ".删：早上好");
    assert_eq!(
        deleted["command"]["full_name"],
        format!("{id}.custom_command_delete")
    );
    let silent = message(&market, ".早上好");
    assert!(sent(&silent).is_empty(), "{silent}");
    assert_eq!(silent["stopped"], Value::Null, "{silent}");
}

#[test]
fn the_message_react_event_handler_sees_a_group_message_and_reacts_through_its_own_http_call() {
    let Some(env) = shared_env() else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let servers = Servers::start(&runtime);
    let react = format!(
        "[runners.plugins.\"davidblackcn.maibot-message-react-plugin\"]\n\
         config = {{ napcat = {{ host = \"127.0.0.1\", port = {}, llm_task = \"\" }}, \
         proactive = {{ chance = 1.0, keyword_chance = 1.0, cooldown_seconds = 0 }} }}\n\n\
         [runners.sandbox]\nconnect_ports = [{}]\n\n{}",
        servers.napcat_port,
        // The runner's sandbox lets it reach the web's ports only: the operator grants the
        // port of its "Napcat", as for a real adapter on this machine.
        servers.napcat_port,
        servers.llm_section()
    );
    let market = Market::new(&env, &react);
    let serve = market.serve();

    // The handler does not hold the message up (intercept_message = false): it is reported
    // reached, and does its work on its own.
    let outcome = message(&market, "哈哈哈笑死我了");
    let handler = outcome["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| {
            h["handler"] == "davidblackcn.maibot-message-react-plugin.msg_react_auto_observer"
        })
        .unwrap_or_else(|| panic!("the handler was not reached: {outcome}"));
    assert_eq!(handler["event"], "on_message", "{handler}");
    assert_eq!(handler["waited"], false, "{handler}");
    let message_id = outcome["message_id"].as_str().unwrap().to_owned();

    // It asked the LLM for an emoji (76, 点赞) and posted it to "Napcat" for that message.
    maitool_e2e::eventually(
        "the plugin's reaction request",
        Duration::from_secs(30),
        || !servers.napcat_requests.lock().unwrap().is_empty(),
    );
    let requests = servers.napcat_requests.lock().unwrap().clone();
    assert_eq!(
        requests[0],
        json!({"path": "/set_msg_emoji_like",
               "body": {"message_id": message_id, "emoji_id": "76", "set": true}}),
    );
    assert!(
        servers
            .prompts
            .lock()
            .unwrap()
            .iter()
            .any(|p| p.contains("哈哈哈笑死我了")),
        "the prompt quotes the message"
    );
    wait_log(&serve, "主动贴表情成功");

    // Its tool does the same for a message named by id.
    let (code, reacted) = market.call(
        "msg_react",
        &json!({ "target_message_id": message_id }).to_string(),
    );
    assert_eq!(code, 0, "{reacted}");
    assert_eq!(
        text(&reacted),
        "已对 Alice 的消息贴了 点赞 表情",
        "{reacted}"
    );
}

#[test]
fn an_engine_runs_the_planner_hook_and_the_world_clock_rewrites_the_time_hint() {
    let Some(env) = shared_env() else {
        return;
    };
    let clock = "[runners.plugins.\"com.0-hz.world-clock\"]\n\
                 config = { clock = { primary_timezone = \"UTC\", world_timezones = [\"Asia/Shanghai\"] } }\n";
    let market = Market::new(&env, clock);
    let _serve = market.serve();

    // maitool has no planner of its own: `maitool hook` runs the point as an engine would,
    // with MaiBot's kwargs (a Context Item list, schema version 1).
    let kwargs = json!({
        "items": [
            {"item_type": "SystemMessageItem", "parts": [{"type": "text", "text": "你是麦麦"}]},
            {"item_type": "UserMessageItem", "parts": [{"type": "text", "text": "时间：2026-03-01 08:00:00"}]}
        ],
        "item_schema_version": 1,
        "tool_definitions": [],
        "selected_history_count": 0,
        "built_message_count": 2,
        "selection_reason": "test",
        "session_id": "st1"
    });
    let (code, out, err) = market.run(&[
        "hook",
        "maisaka.planner.before_request",
        "--kwargs",
        &kwargs.to_string(),
        "--json",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let outcome: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(outcome["aborted"], false, "{outcome}");
    // The world clock (and plastic-memory, which reads only the legacy `messages` and so
    // leaves Context Items alone, as under MaiBot 1.3) handled it.
    assert_eq!(outcome["handlers_run"], 2, "{outcome}");
    assert_eq!(
        outcome["kwargs"]["items"][1]["parts"][0]["text"],
        "本地时间：\n- UTC (UTC): 2026-03-01 08:00:00\n世界时间：\n- Asia/Shanghai (CST): 2026-03-01 16:00:00",
        "{outcome}"
    );
    assert_eq!(outcome["kwargs"]["items"][0], kwargs["items"][0]);

    // The hook list says who runs the point: nobody inside maitool, an engine may.
    let (code, out, _) = market.run(&["hook", "--list", "--json"]);
    assert_eq!(code, 0, "{out}");
    let hooks: Value = serde_json::from_str(&out).unwrap();
    let planner = hooks
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "maisaka.planner.before_request")
        .unwrap_or_else(|| panic!("{hooks}"));
    let handlers = planner["handlers"].to_string();
    assert!(
        handlers.contains("com.0-hz.world-clock.world_clock_planner")
            && handlers.contains("com.0-hz.plastic-memory.inject_note_planner"),
        "{planner}"
    );
}

#[test]
fn the_impression_card_finds_a_person_through_person_and_database_get_and_keeps_its_scores() {
    let Some(env) = shared_env() else {
        return;
    };
    let market = Market::new(&env, "");
    let _serve = market.serve();

    // By name: person.get_id_by_name, then MaiBot's PersonInfo table through database.get
    // (the seeded profile of Alice: person_name Alice, nickname Ali, on qq as u-alice).
    let (code, detail) = market.call("get_impression_detail", r#"{"target": "Alice"}"#);
    assert_eq!(code, 0, "{detail}");
    let detail = text(&detail);
    assert!(
        detail.starts_with("## Alice 的") && detail.contains("- QQ 昵称：Ali\n"),
        "{detail}"
    );
    // Its own scores, kept in its data folder: set, then read back.
    let (code, set) = market.call(
        "set_score",
        r#"{"target": "Alice", "dimension": "trust", "value": 88}"#,
    );
    assert_eq!(code, 0, "{set}");
    let (_, detail) = market.call("get_impression_detail", r#"{"target": "Alice"}"#);
    assert!(text(&detail).contains("| 信赖 | 88"), "{detail}");
    // Someone the store does not know.
    let (_, nobody) = market.call("get_impression_detail", r#"{"target": "Zed"}"#);
    assert_eq!(
        text(&nobody),
        "找不到名为「Zed」的人物（可试 QQ 号、昵称、别名或群名片）。",
        "{nobody}"
    );
}
