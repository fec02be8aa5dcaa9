use std::str::FromStr;

use crate::llm::ModelApi;

use super::DefinitionFormat;

#[test]
fn formats_parse_from_their_names_and_the_model_api_aliases() {
    for format in DefinitionFormat::ALL {
        assert_eq!(DefinitionFormat::from_str(format.as_str()), Ok(format));
        let json = serde_json::to_value(format).unwrap();
        assert_eq!(
            json,
            format.as_str(),
            "the JSON name is the command-line name"
        );
        assert_eq!(
            serde_json::from_value::<DefinitionFormat>(json).unwrap(),
            format
        );
    }
    for (alias, format) in [
        ("OpenAI_Chat", DefinitionFormat::Openai),
        ("chat", DefinitionFormat::Openai),
        ("openai_responses", DefinitionFormat::OpenaiResponses),
        ("responses", DefinitionFormat::OpenaiResponses),
        ("claude", DefinitionFormat::Anthropic),
        ("google", DefinitionFormat::Gemini),
        ("MaiBot", DefinitionFormat::Maibot),
    ] {
        assert_eq!(DefinitionFormat::from_str(alias), Ok(format), "{alias}");
    }
    let err = DefinitionFormat::from_str("llama").unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown definitions format `llama`: expected openai, openai-responses, anthropic, gemini or maibot"
    );
}

#[test]
fn every_format_but_maibot_renders_through_a_model_api() {
    assert_eq!(
        DefinitionFormat::Openai.model_api(),
        Some(ModelApi::OpenAiChat)
    );
    assert_eq!(
        DefinitionFormat::OpenaiResponses.model_api(),
        Some(ModelApi::OpenAiResponses)
    );
    assert_eq!(
        DefinitionFormat::Anthropic.model_api(),
        Some(ModelApi::Anthropic)
    );
    assert_eq!(DefinitionFormat::Gemini.model_api(), Some(ModelApi::Gemini));
    assert_eq!(DefinitionFormat::Maibot.model_api(), None);
}
