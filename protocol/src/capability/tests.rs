use super::*;

#[test]
fn every_name_parses_back_and_starts_with_its_family() {
    for &capability in Capability::ALL {
        assert_eq!(capability.name().parse::<Capability>(), Ok(capability));
        let (family, action) = capability.name().split_once('.').unwrap();
        assert_eq!(family, capability.family().name(), "{capability}");
        assert_eq!(family.parse::<CapabilityFamily>(), Ok(capability.family()));
        // MaiBot nests some actions (`maisaka.context.append`), never with an empty part.
        assert!(
            action.split('.').all(|part| !part.is_empty()),
            "{capability}"
        );
    }
    assert!(CapabilityFamily::ALL.iter().all(|family| {
        Capability::ALL
            .iter()
            .any(|capability| capability.family() == *family)
    }));
}

#[test]
fn serializes_as_its_wire_name() {
    let json = serde_json::to_string(&Capability::SendText).unwrap();
    assert_eq!(json, r#""send.text""#);
    let back: Capability = serde_json::from_str(&json).unwrap();
    assert_eq!(back, Capability::SendText);
    let packed = rmp_serde::to_vec(&Capability::KvList).unwrap();
    assert_eq!(
        rmp_serde::from_slice::<Capability>(&packed).unwrap(),
        Capability::KvList
    );
    let err = serde_json::from_str::<Capability>(r#""kv.compact""#).unwrap_err();
    assert!(
        err.to_string().contains("unknown capability kv.compact"),
        "{err}"
    );
}
