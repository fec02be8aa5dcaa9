use maitool_protocol::JsonObject;
use maitool_protocol::wire::MAX_NESTING_DEPTH;
use serde_json::Value;

use super::check_arguments;

fn nested(depth: usize) -> Value {
    let mut value = Value::from(0);
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    value
}

fn arguments_with(value: Value) -> JsonObject {
    let mut arguments = JsonObject::new();
    arguments.insert("value".into(), value);
    arguments
}

#[test]
fn arguments_may_fill_the_frame_and_no_more() {
    // The envelope, the payload and the arguments map itself take three levels.
    let mut fits = arguments_with(nested(MAX_NESTING_DEPTH - 3));
    assert_eq!(check_arguments(&mut fits, 0), Ok(()));
    assert_eq!(fits.len(), 1, "accepted arguments are left alone");

    let mut over = arguments_with(nested(MAX_NESTING_DEPTH - 2));
    assert_eq!(
        check_arguments(&mut over, 0).unwrap_err().to_string(),
        "[E_BAD_PAYLOAD] arguments nested deeper than 126 levels (a frame may nest at most 128)"
    );
    assert!(over.is_empty());
    // A legacy action's `action_data` wrapper costs one level.
    let mut action = arguments_with(nested(MAX_NESTING_DEPTH - 3));
    assert!(check_arguments(&mut action, 1).is_err());
}

#[test]
fn a_hundred_thousand_levels_are_refused_and_dropped_on_a_small_stack() {
    let refused = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let mut arguments = arguments_with(nested(100_000));
            let verdict = check_arguments(&mut arguments, 0);
            drop(arguments);
            verdict.is_err()
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert!(refused);
}

#[test]
fn flat_arguments_pass_untouched() {
    let mut arguments = JsonObject::new();
    arguments.insert("text".into(), Value::from("hello"));
    arguments.insert("count".into(), Value::from(3));
    arguments.insert("none".into(), Value::Null);
    let before = arguments.clone();
    assert_eq!(check_arguments(&mut arguments, 1), Ok(()));
    assert_eq!(arguments, before);
}
