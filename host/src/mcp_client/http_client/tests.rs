use std::collections::BTreeMap;

use super::*;

fn server(headers: &[(&str, &str)]) -> McpServerConfig {
    McpServerConfig {
        name: "remote".to_owned(),
        headers: headers
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect::<BTreeMap<_, _>>(),
        ..McpServerConfig::default()
    }
}

#[test]
fn an_invalid_header_names_it_and_keeps_the_parse_error_as_source() {
    let err = header_map(&server(&[("bad header", "x")]), false).unwrap_err();
    assert!(
        matches!(&err, HttpSetupError::HeaderName { name, .. } if name == "bad header"),
        "{err:?}"
    );
    let source = std::error::Error::source(&err).expect("the parse error is the source");
    assert!(source.downcast_ref::<InvalidHeaderName>().is_some());
    assert_eq!(err.to_string(), "invalid header name \"bad header\"");

    let err = header_map(&server(&[("X-Key", "a\nb")]), false).unwrap_err();
    assert!(
        matches!(&err, HttpSetupError::HeaderValue { name, .. } if name == "x-key"),
        "{err:?}"
    );
    let source = std::error::Error::source(&err).expect("the parse error is the source");
    assert!(source.downcast_ref::<InvalidHeaderValue>().is_some());
}

#[test]
fn a_bad_bearer_token_is_refused_without_showing_it() {
    let mut config = server(&[]);
    config.authorization.mode = McpAuthorizationMode::Bearer;
    config.authorization.bearer_token = "secret\nvalue".to_owned();
    let err = header_map(&config, true).unwrap_err();
    assert!(matches!(err, HttpSetupError::BearerToken), "{err:?}");
    assert!(std::error::Error::source(&err).is_none());
    assert!(!format!("{err} {err:?}").contains("secret"));
    // Without authorization the token is not read.
    assert!(header_map(&config, false).is_ok());
}
