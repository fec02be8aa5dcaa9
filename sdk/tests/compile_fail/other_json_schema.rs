// An argument type that implements a `JsonSchema` trait other than the SDK's, as a derive
// from another major version of schemars does: the error names the fix.
use maitool_sdk::prelude::*;

mod old_schemars {
    pub trait JsonSchema {}
}

#[derive(maitool_sdk::Deserialize)]
#[serde(crate = "maitool_sdk::serde")]
struct RollArgs {
    sides: u32,
}

impl old_schemars::JsonSchema for RollArgs {}

fn main() {
    let _ = Tool::new("roll", "Roll a die.", |args: RollArgs, _ctx: ToolContext| async move {
        Ok(ToolOutput::text(args.sides.to_string()))
    });
}
