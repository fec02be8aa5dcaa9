use super::*;

fn bot(toml_text: &str) -> BotConfig {
    toml::from_str(toml_text).unwrap()
}

#[test]
fn operators_and_per_command_rules_admit_as_maibot_does() {
    let bot = bot(r#"
        [extra.plugin]
        permission = ["QQ:op1", " tg:Op2 "]
        [extra.plugin.command_permissions."p.cmd"]
        allow_users = ["qq:friend"]
        allow_chats = ["group-7"]
    "#);
    // The platform's case does not matter; the user id's does.
    assert_eq!(refusal(&bot, "p.other", "qq", "op1", "s"), None);
    assert_eq!(refusal(&bot, "p.other", "TG", "Op2", "s"), None);
    assert!(refusal(&bot, "p.other", "tg", "op2", "s").is_some());
    // Per command: a user, or anyone in a chat.
    assert_eq!(refusal(&bot, "p.cmd", "qq", "friend", "s"), None);
    assert_eq!(refusal(&bot, "p.cmd", "qq", "stranger", "group-7"), None);
    assert_eq!(
        refusal(&bot, "p.cmd", "qq", "stranger", "s").unwrap(),
        "command p.cmd is for operators (permission = \"operator\"), and qq:stranger is not \
         one: list operators as platform:user_id in [bot.extra.plugin] permission"
    );
    assert!(refusal(&bot, "p.other", "qq", "friend", "s").is_some());
}

#[test]
fn without_settings_nobody_is_an_operator() {
    let none = BotConfig::default();
    assert!(refusal(&none, "p.cmd", "qq", "u1", "s").is_some());
    assert!(
        refusal(&none, "p.cmd", "", "u1", "s")
            .unwrap()
            .contains("a sender without platform")
    );
}
