use super::*;

#[test]
fn every_line_of_the_checked_in_sets_is_an_exact_pin() {
    for (set, text) in [(PinnedSet::Runner, RUNNER), (PinnedSet::Baseline, BASELINE)] {
        let lines = text
            .lines()
            .map(|l| l.split('#').next().unwrap().trim())
            .filter(|l| !l.is_empty())
            .count();
        let pins = set.pins();
        assert_eq!(
            pins.len(),
            lines,
            "{set:?}: a line that is not `name==version`"
        );
        assert!(pins.iter().all(|p| !p.version.is_empty()));
    }
}

#[test]
fn the_runner_set_holds_the_runner_and_the_sdk_and_the_baseline_repeats_none_of_it() {
    let runner = PinnedSet::Runner.pins();
    let version = |name: &str| {
        runner
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.version.clone())
    };
    assert_eq!(version("maibot").as_deref(), Some("1.3.15"));
    assert_eq!(version("maibot-plugin-sdk").as_deref(), Some("2.16.0"));
    for pin in PinnedSet::Baseline.pins() {
        assert!(
            runner.iter().all(|r| r.name != pin.name),
            "{} is pinned twice",
            pin.name
        );
    }
}

#[test]
fn markers_stay_on_the_line_and_names_are_normalised() {
    let pins = parse("Foo_Bar==1.0 ; sys_platform != 'x'  # why\n# only a comment\n\nbaz==2\n");
    assert_eq!(
        pins,
        [
            Pin {
                name: "foo-bar".into(),
                version: "1.0".into(),
                line: "Foo_Bar==1.0 ; sys_platform != 'x'".into()
            },
            Pin {
                name: "baz".into(),
                version: "2".into(),
                line: "baz==2".into()
            }
        ]
    );
}
