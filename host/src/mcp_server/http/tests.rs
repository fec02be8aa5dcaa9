use super::*;

#[test]
fn origins_match_by_scheme_host_and_port() {
    let bound: SocketAddr = "10.1.2.3:8765".parse().unwrap();
    let policy = OriginPolicy::new(
        Some(bound),
        &[
            "https://app.example.com".to_owned(),
            "http://tools.internal:*".to_owned(),
        ],
    )
    .unwrap();
    for allowed in [
        "http://localhost:6274",
        "http://127.0.0.1",
        "http://[::1]:3000",
        "http://10.1.2.3:8765",
        "https://app.example.com",
        "https://app.example.com:443",
        "http://tools.internal:9",
    ] {
        assert!(policy.allows(allowed), "{allowed}");
    }
    for refused in [
        "http://evil.example",
        "https://app.example.com:8443",
        "http://app.example.com",
        "http://10.1.2.3:9999",
        "null",
        "file://",
        "http://localhost.evil.example",
    ] {
        assert!(!policy.allows(refused), "{refused}");
    }
    assert!(policy.cors);
    assert!(!OriginPolicy::new(None, &[]).unwrap().cors);
    assert_eq!(
        OriginPattern::parse("example.com").unwrap_err().reason,
        "no scheme"
    );
    assert_eq!(
        OriginPattern::parse("http://h:x").unwrap_err().reason,
        "bad port"
    );
    for with_path in ["http://h/path", "http://h/path/"] {
        assert_eq!(
            OriginPattern::parse(with_path).unwrap_err().reason,
            "an origin has no path"
        );
    }
    assert!(OriginPattern::parse("https://app.example.com/").is_ok());
}

#[test]
fn a_preflight_allows_the_2026_headers_and_the_param_headers_it_asks_for() {
    let fixed = allow_headers(&None);
    let fixed = fixed.to_str().unwrap();
    for name in [
        "mcp-method",
        "mcp-name",
        "mcp-protocol-version",
        "authorization",
    ] {
        assert!(
            fixed.split(", ").any(|listed| listed == name),
            "{name} in {fixed}"
        );
    }
    let asked = HeaderValue::from_static(
        "content-type, Mcp-Method, mcp-name, Mcp-Param-City, mcp-param-, x-evil, mcp-param-bad name",
    );
    let answer = allow_headers(&Some(asked));
    let listed: Vec<&str> = answer.to_str().unwrap().split(", ").collect();
    assert!(listed.contains(&"mcp-param-city"), "{listed:?}");
    // Not a param header, an empty param name, or not a header name: left out, so the
    // browser refuses to send them.
    assert!(!listed.contains(&"x-evil"), "{listed:?}");
    assert!(!listed.contains(&"mcp-param-"), "{listed:?}");
    assert!(!listed.iter().any(|name| name.contains(' ')), "{listed:?}");
}
