use super::chain;

#[derive(Debug, thiserror::Error)]
#[error("outer")]
struct Outer(#[source] Middle);

#[derive(Debug, thiserror::Error)]
#[error("middle: {0}")]
struct Middle(#[source] std::io::Error);

#[test]
fn every_cause_is_shown_once() {
    let err = Outer(Middle(std::io::Error::other("disk gone")));
    assert_eq!(chain(&err), "outer: middle: disk gone");
}

#[derive(Debug, thiserror::Error)]
#[error("cannot decode message: {0}")]
struct Repeats(#[source] std::io::Error);

#[derive(Debug, thiserror::Error)]
#[error("malformed runner.hello")]
struct Hello(#[source] Repeats);

#[test]
fn a_source_its_error_already_printed_is_not_repeated() {
    let err = Hello(Repeats(std::io::Error::other("bad marker")));
    assert_eq!(
        chain(&err),
        "malformed runner.hello: cannot decode message: bad marker"
    );
}
