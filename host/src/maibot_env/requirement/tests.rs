use super::*;

#[test]
fn names_normalise_as_pep_503_says() {
    assert_eq!(canonical_name("Pillow"), "pillow");
    assert_eq!(canonical_name("json_repair"), "json-repair");
    assert_eq!(canonical_name("zope.interface"), "zope-interface");
    assert_eq!(canonical_name("a__-.b"), "a-b");
    let written = PackageName::parse("Typing_Extensions").unwrap();
    assert_eq!(written.canonical(), "typing-extensions");
    assert_eq!(written.to_string(), "Typing_Extensions");
}

#[test]
fn a_name_that_is_not_one_is_refused_with_the_text() {
    for bad in ["", "-httpx", "httpx-", "ht tpx", "httpx;rm -rf", "../x"] {
        let err = PackageName::parse(bad).unwrap_err();
        assert!(matches!(err, RequirementError::Name(_)), "{bad}: {err}");
    }
}

#[test]
fn lines_split_into_name_extras_and_specifiers() {
    let req = Requirement::parse("httpx[socks]>=0.27,<1").unwrap();
    assert_eq!(req.name().canonical(), "httpx");
    assert_eq!(req.extras(), ["socks"]);
    assert_eq!(req.to_string(), "httpx[socks]>=0.27, <1");
    let bare = Requirement::parse("numpy").unwrap();
    assert!(bare.admits("0.1"));
    let spaced = Requirement::parse("pillow >= 10.0.0").unwrap();
    assert!(spaced.admits("12.3.0"));
    assert!(!spaced.admits("9.5"));
}

#[test]
fn a_bare_version_means_that_version_or_later() {
    // `{"name": "aiohttp", "version": "3.8.0"}` is how some market manifests write it.
    let req = Requirement::new("aiohttp", "3.8.0").unwrap();
    assert!(req.admits("3.8.0"));
    assert!(req.admits("3.14.5"));
    assert!(!req.admits("3.7.9"));
}

#[test]
fn a_malformed_specifier_names_the_package_and_keeps_the_parser_error() {
    let err = Requirement::new("httpx", ">=>1").unwrap_err();
    assert!(err.to_string().contains("`>=>1`"), "{err}");
    assert!(err.to_string().contains("httpx"), "{err}");
    assert!(std::error::Error::source(&err).is_some());
    assert!(matches!(
        Requirement::new("httpx[socks", ""),
        Err(RequirementError::Extras(_))
    ));
}

#[test]
fn installed_versions_are_checked_against_the_specifiers() {
    let req = Requirement::new("pydantic", "<2").unwrap();
    assert!(!req.admits("2.14.4"));
    assert!(req.admits("1.10.13"));
    let compatible = Requirement::new("cowsay", "~=6.0").unwrap();
    assert!(compatible.admits("6.1"));
    assert!(!compatible.admits("7.0"));
    let wildcard = Requirement::new("pillow", "==12.*").unwrap();
    assert!(wildcard.admits("12.3.0"));
    assert!(!wildcard.admits("13.0.0"));
    assert!(!req.admits("not a version"));
}

#[test]
fn conflicts_are_disjoint_ranges_of_the_same_package() {
    let a = Requirement::new("cowsay", "==6.1").unwrap();
    let b = Requirement::new("cowsay", "==6.0").unwrap();
    let c = Requirement::new("cowsay", ">=6").unwrap();
    let d = Requirement::new("Cowsay", "<6.1").unwrap();
    assert!(a.conflicts_with(&b));
    assert!(!a.conflicts_with(&c));
    assert!(a.conflicts_with(&d));
    assert!(!b.conflicts_with(&d));
    // Ranges that touch at an excluded bound do not overlap; ranges that share a point do.
    let below = Requirement::new("x", "<2").unwrap();
    let from = Requirement::new("x", ">=2").unwrap();
    let upto = Requirement::new("x", "<=2").unwrap();
    assert!(below.conflicts_with(&from));
    assert!(!upto.conflicts_with(&from));
    // Another package never conflicts.
    assert!(!a.conflicts_with(&Requirement::new("other", "==1").unwrap()));
    // Excluding one version leaves the others.
    let not = Requirement::new("x", "!=2.0").unwrap();
    assert!(!not.conflicts_with(&from));
    assert!(not.conflicts_with(&Requirement::new("x", "==2.0").unwrap()));
}

#[test]
fn specifiers_that_admit_nothing_are_seen() {
    assert!(Requirement::new("x", ">=2,<1").unwrap().is_unsatisfiable());
    assert!(!Requirement::new("x", ">=1,<2").unwrap().is_unsatisfiable());
}
