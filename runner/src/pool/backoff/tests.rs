use super::{Backoff, CAP, FIRST};

#[test]
fn delays_double_to_the_cap_with_jitter_within_each_step() {
    let mut backoff = Backoff::new();
    let mut step = FIRST;
    let mut seen = std::collections::HashSet::new();
    for _ in 0..12 {
        let delay = backoff.next_delay();
        assert!(
            delay >= step / 2 && delay <= step,
            "{delay:?} outside [{:?}, {step:?}]",
            step / 2
        );
        seen.insert(delay);
        step = (step * 2).min(CAP);
    }
    assert!(backoff.next_delay() <= CAP);
    assert!(seen.len() > 6, "the delays are jittered: {seen:?}");
    backoff.reset();
    assert!(backoff.next_delay() <= FIRST);
}
