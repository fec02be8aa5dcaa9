use axum::http::{HeaderMap, HeaderValue, header};

use super::*;

fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        map.append(*name, HeaderValue::from_str(value).unwrap());
    }
    map
}

fn loopback() -> Guard {
    Guard::new("127.0.0.1:8090".parse().unwrap(), None, &[]).unwrap()
}

#[test]
fn only_the_consoles_own_origin_may_change_things() {
    let guard = loopback();
    assert_eq!(
        guard.origin_problem(&headers(&[("origin", "http://127.0.0.1:8090")])),
        None
    );
    assert_eq!(
        guard.origin_problem(&headers(&[("origin", "http://localhost:8090")])),
        None
    );
    // Another local web app, another port: refused.
    assert!(
        guard
            .origin_problem(&headers(&[("origin", "http://localhost:3000")]))
            .is_some()
    );
    assert!(
        guard
            .origin_problem(&headers(&[("origin", "https://evil.example")]))
            .is_some()
    );
    assert!(
        guard
            .origin_problem(&headers(&[("origin", "null")]))
            .is_some()
    );
    assert!(
        guard
            .origin_problem(&headers(&[("sec-fetch-site", "cross-site")]))
            .is_some()
    );
    // A client that is not a browser.
    assert_eq!(guard.origin_problem(&HeaderMap::new()), None);
}

#[test]
fn allowed_origins_add_to_the_consoles_own() {
    let guard = Guard::new(
        "127.0.0.1:8090".parse().unwrap(),
        None,
        &["https://ops.example.org".into()],
    )
    .unwrap();
    assert_eq!(
        guard.origin_problem(&headers(&[("origin", "https://ops.example.org")])),
        None
    );
}

#[test]
fn a_loopback_console_answers_loopback_host_names_only() {
    let guard = loopback();
    assert!(guard.host_allowed(&headers(&[("host", "127.0.0.1:8090")])));
    assert!(guard.host_allowed(&headers(&[("host", "localhost:8090")])));
    assert!(guard.host_allowed(&headers(&[("host", "[::1]:8090")])));
    assert!(!guard.host_allowed(&headers(&[("host", "rebound.example:8090")])));
    assert!(!guard.host_allowed(&HeaderMap::new()));
}

#[test]
fn the_token_comes_as_the_cookie_or_a_bearer_header() {
    let guard = Guard::new(
        "0.0.0.0:8090".parse().unwrap(),
        Some("0123456789abcdef".into()),
        &[],
    )
    .unwrap();
    assert!(!guard.authenticated(&HeaderMap::new()));
    assert!(guard.authenticated(&headers(&[("authorization", "Bearer 0123456789abcdef")])));
    assert!(!guard.authenticated(&headers(&[("authorization", "Bearer 0123456789abcdeX")])));
    let mut cookie = HeaderMap::new();
    cookie.insert(
        header::COOKIE,
        HeaderValue::from_static("a=b; maitool_console=0123456789abcdef"),
    );
    assert!(guard.authenticated(&cookie));
    assert!(!guard.token_matches("0123456789abcde"));
}
