//! Arbitrary JSON through the model tool-call parsers of every API, and through the tool
//! renderers when it decodes as tool definitions.
//!
//! Calls parsed from one API's answer must come back unchanged (name, arguments, call id)
//! from an answer of every API built around them: what a host parses it can hand on.
#![no_main]

use libfuzzer_sys::fuzz_target;
use maitool_fuzz::answers::{Call, model_answer};
use maitool_protocol::ToolSpec;
use maitool_host::llm::{ModelApi, parse_tool_calls, render_tools};
use maitool_protocol::ToolDefinition;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(raw) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    for api in ModelApi::ALL {
        match parse_tool_calls(api, &raw) {
            Ok(invocations) => {
                let calls: Vec<Call> = invocations
                    .into_iter()
                    .map(|invocation| {
                        assert!(
                            !invocation.tool_name.is_empty(),
                            "{api}: call without a name"
                        );
                        assert!(!invocation.call_id.is_empty(), "{api}: call without an id");
                        Call {
                            name: invocation.tool_name,
                            arguments: invocation.arguments,
                            call_id: invocation.call_id,
                        }
                    })
                    .collect();
                survives_every_api(api, &calls);
            }
            Err(err) => assert!(!err.to_string().is_empty()),
        }
    }

    if let Ok(definitions) = serde_json::from_value::<Vec<ToolDefinition>>(raw.clone()) {
        renders(&definitions);
    }
    if let Ok(specs) = serde_json::from_value::<Vec<ToolSpec>>(raw) {
        let definitions: Vec<ToolDefinition> =
            specs.iter().map(ToolSpec::to_llm_definition).collect();
        renders(&definitions);
    }
});

fn survives_every_api(from: ModelApi, calls: &[Call]) {
    for to in ModelApi::ALL {
        let answer = model_answer(to, calls);
        let parsed = parse_tool_calls(to, &answer)
            .unwrap_or_else(|err| panic!("{from} calls rebuilt as a {to} answer: {err}"));
        let parsed: Vec<Call> = parsed
            .into_iter()
            .map(|invocation| Call {
                name: invocation.tool_name,
                arguments: invocation.arguments,
                call_id: invocation.call_id,
            })
            .collect();
        assert_eq!(
            parsed, calls,
            "{from} calls changed on the way through {to}"
        );
    }
}

/// Every API gets one entry per tool, under the tool's name, in order.
fn renders(definitions: &[ToolDefinition]) {
    for api in ModelApi::ALL {
        let rendered = render_tools(api, definitions);
        let entries = match api {
            ModelApi::Gemini if definitions.is_empty() => {
                assert_eq!(rendered, Value::Array(Vec::new()), "{api}: no tools");
                continue;
            }
            ModelApi::Gemini => rendered[0]["functionDeclarations"].as_array(),
            _ => rendered.as_array(),
        }
        .unwrap_or_else(|| panic!("{api}: tools are not an array: {rendered}"));
        let names: Vec<&str> = entries
            .iter()
            .map(|entry| match api {
                ModelApi::OpenAiChat => entry["function"]["name"].as_str(),
                _ => entry["name"].as_str(),
            })
            .map(|name| name.unwrap_or_else(|| panic!("{api}: an entry without a name")))
            .collect();
        let want: Vec<&str> = definitions.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, want, "{api}: tool names");
    }
}
