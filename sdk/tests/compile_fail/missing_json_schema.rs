// An argument type that derives `Deserialize` but no `JsonSchema`: the error names the fix.
use maitool_sdk::prelude::*;

#[derive(maitool_sdk::Deserialize)]
#[serde(crate = "maitool_sdk::serde")]
struct RollArgs {
    sides: u32,
}

fn main() {
    let _ = Tool::new("roll", "Roll a die.", |args: RollArgs, _ctx: ToolContext| async move {
        Ok(ToolOutput::text(args.sides.to_string()))
    });
}
