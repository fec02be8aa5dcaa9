use super::*;
use serde::Deserialize;

#[derive(Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
struct Settings {
    level: u32,
}

impl PluginConfig for Settings {
    fn validate(&self) -> Result<(), String> {
        if self.level > 9 {
            return Err(format!("level must be at most 9, got {}", self.level));
        }
        Ok(())
    }
}

fn level(slot: &ConfigSlot) -> u32 {
    slot.get::<Settings>().unwrap().level
}

#[test]
fn a_refused_update_restores_the_previous_configuration() {
    let slot = ConfigSlot::typed::<Settings>();
    let values = |level: u32| {
        serde_json::json!({ "level": level })
            .as_object()
            .cloned()
            .unwrap()
    };
    slot.apply(&values(1)).unwrap();
    slot.apply(&values(2)).unwrap();
    assert_eq!(level(&slot), 2);
    slot.restore_previous();
    assert_eq!(level(&slot), 1);
    // A value that does not validate is never installed.
    let refused = slot.apply(&values(10)).unwrap_err();
    assert_eq!(refused, "level must be at most 9, got 10");
    assert_eq!(level(&slot), 1);
}
