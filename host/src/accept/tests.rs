use super::*;

#[test]
fn pauses_double_up_to_a_second_and_reset_on_success() {
    let mut backoff = AcceptBackoff::new("test listener");
    let err = std::io::Error::from_raw_os_error(24);
    let pauses: Vec<u128> = (0..10).map(|_| backoff.failed(&err).as_millis()).collect();
    assert_eq!(
        pauses,
        [10, 20, 40, 80, 160, 320, 640, 1000, 1000, 1000],
        "doubling, capped at a second"
    );
    backoff.succeeded();
    assert_eq!(backoff.failed(&err), FIRST_PAUSE);
}
