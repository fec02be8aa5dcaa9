//! Compile errors an author meets, checked word for word: the `.stderr` file next to each
//! case is the message the compiler must give (`TRYBUILD=overwrite` regenerates them).

#[test]
fn argument_types_without_the_sdks_json_schema_are_refused_with_the_fix() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/compile_fail/*.rs");
}
