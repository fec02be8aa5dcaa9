use maitool_protocol::wire::methods::ComponentDeclaration;

use super::{fingerprints, is_older};

#[test]
fn versions_compare_by_their_numbers() {
    assert!(is_older("1.9.0", "1.10.0"));
    assert!(is_older("1.0", "1.0.1"));
    assert!(!is_older("2.0.0", "1.10.0"));
    assert!(!is_older("1.0.0", "1.0.0"), "an equal version is not older");
}

#[test]
fn a_declaration_that_changes_changes_its_fingerprint_only() {
    let tool = |name: &str, description: &str| {
        let mut metadata = maitool_protocol::JsonObject::new();
        metadata.insert("description".into(), description.into());
        ComponentDeclaration {
            name: name.into(),
            component_type: "TOOL".into(),
            metadata,
            ..ComponentDeclaration::default()
        }
    };
    let old = fingerprints(&[tool("echo", "Echo."), tool("slow", "Sleep.")]);
    let new = fingerprints(&[tool("echo", "Echo."), tool("slow", "Sleep, then answer.")]);
    assert_eq!(old["echo"], new["echo"]);
    assert_ne!(old["slow"], new["slow"]);
}
