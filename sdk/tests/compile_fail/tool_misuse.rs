// Mistakes in #[tool] functions: each is refused with what to write instead.

#[maitool_sdk::tool]
async fn undocumented(sides: u32) -> Result<String, maitool_sdk::ToolError> {
    Ok(sides.to_string())
}

/// Borrowed arguments cannot be deserialized into.
#[maitool_sdk::tool]
async fn borrowed(text: &str) -> Result<String, maitool_sdk::ToolError> {
    Ok(text.to_owned())
}

/// Not async.
#[maitool_sdk::tool]
fn blocking(sides: u32) -> Result<String, maitool_sdk::ToolError> {
    Ok(sides.to_string())
}

/// An unknown option.
#[maitool_sdk::tool(visible)]
async fn unknown_option() -> Result<String, maitool_sdk::ToolError> {
    Ok(String::new())
}

/// A platform that is not a string.
#[maitool_sdk::tool(platforms = [3])]
async fn numeric_platform() -> Result<String, maitool_sdk::ToolError> {
    Ok(String::new())
}

/// An empty platform name.
#[maitool_sdk::tool(platforms = ["telegram", " "])]
async fn empty_platform() -> Result<String, maitool_sdk::ToolError> {
    Ok(String::new())
}

struct Counter;

#[maitool_sdk::tools]
impl Counter {
    /// Mutable state needs a lock: calls run concurrently.
    #[tool]
    async fn add(&mut self) -> Result<String, maitool_sdk::ToolError> {
        Ok(String::new())
    }
}

fn main() {}
