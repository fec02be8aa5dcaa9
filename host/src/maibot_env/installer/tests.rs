use super::*;

#[test]
fn the_shared_arguments_carry_every_part_of_the_request_in_order() {
    let request = InstallRequest {
        python: "/v/bin/python".into(),
        files: vec!["/t/runner.txt".into(), "/t/baseline.txt".into()],
        requirements: vec!["cowsay==6.1".into()],
        constraints: Some("/t/constraints.txt".into()),
        no_deps: true,
        index_url: Some("http://127.0.0.1:9/simple".into()),
    };
    assert_eq!(
        common_args(&request, &[]),
        [
            "--no-deps",
            "--index-url",
            "http://127.0.0.1:9/simple",
            "--constraint",
            "/t/constraints.txt",
            "-r",
            "/t/runner.txt",
            "-r",
            "/t/baseline.txt",
            "cowsay==6.1"
        ]
    );
    assert_eq!(
        common_args(&InstallRequest::default(), &[]),
        Vec::<String>::new()
    );
}

#[test]
fn both_installers_say_what_they_are() {
    assert_eq!(Pip.describe(), "pip");
    assert!(
        Uv {
            exe: "/x/uv".into()
        }
        .describe()
        .starts_with("uv 0.")
    );
}
