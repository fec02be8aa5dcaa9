use super::*;

#[tokio::test]
async fn a_venv_or_an_empty_folder_is_cleared_and_anything_else_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("venv");
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::fs::write(venv.join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    assert!(is_venv(&venv));
    assert_eq!(venv_of(&venv.join("bin/python")), Some(venv.clone()));
    clear(&venv).await.unwrap();
    assert!(!venv.exists());
    clear(&venv).await.unwrap();

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    clear(&empty).await.unwrap();
    assert!(!empty.exists());

    let precious = dir.path().join("precious");
    std::fs::create_dir(&precious).unwrap();
    std::fs::write(precious.join("thesis.tex"), "years of work").unwrap();
    let err = clear(&precious).await.unwrap_err();
    assert!(matches!(err, ClearError::NotAVenv { .. }), "{err}");
    assert!(err.to_string().contains("python_env.path"), "{err}");
    assert!(precious.join("thesis.tex").exists());
    assert_eq!(venv_of(&precious.join("bin/python")), None);
}
