use std::path::Path;

use super::from_bootstrap;

#[test]
fn an_empty_data_dir_means_none() {
    assert_eq!(from_bootstrap(""), Ok(None));
}

#[test]
fn an_absolute_data_dir_is_kept_as_is() {
    let dir = from_bootstrap("/var/lib/maitool/plugins/examples.notes")
        .unwrap()
        .unwrap();
    assert_eq!(&*dir, Path::new("/var/lib/maitool/plugins/examples.notes"));
}

#[test]
fn a_relative_data_dir_is_refused_naming_it() {
    for raw in ["data/plugins/p", "./p", "../p", "p"] {
        assert_eq!(
            from_bootstrap(raw).unwrap_err().to_string(),
            (format!("the host sent a data_dir that is not an absolute path: {raw:?}")),
        );
    }
}
