//! A legacy MaiBot Action, converted to a tool by the SDK. New plugins should declare tools
//! (see the dice example); Actions are for porting MaiBot plugins as they are.
//!
//! `greet` is deferred, like every plugin tool that is not a core tool: the model finds it
//! with `tool_search`. Its `name` parameter is required, so the host refuses a call without it.

use maitool_sdk::prelude::*;

fn main() {
    let greeter = Plugin::new("examples.legacy_greeter", "1.0.0")
        .name("Legacy greeter")
        .description("An old-style Action: string parameters in, (success, message) out.")
        .action(
            Action::new(
                "greet",
                "Greet someone by name in the current chat.",
                |input: ActionInput| async move {
                    let name = input.param("name");
                    if name.is_empty() {
                        return (false, "who should I greet? `name` is empty".to_owned());
                    }
                    let mood = match input.param("mood") {
                        "" => "warmly".to_owned(),
                        mood => mood.to_owned(),
                    };
                    (
                        true,
                        format!(
                            "greeted {name} {mood} in {} (reasoning: {})",
                            input.chat_id,
                            if input.reasoning.is_empty() {
                                "none"
                            } else {
                                &input.reasoning
                            }
                        ),
                    )
                },
            )
            .required_parameter("name", "Who to greet")
            .parameter("mood", "How to greet, e.g. cheerfully")
            .require("Use when someone joins the chat")
            .associated_type("text")
            .activation(ActivationType::Keyword, ["hello", "hi"])
            .parallel(true),
        );
    maitool_sdk::run([greeter]);
}
