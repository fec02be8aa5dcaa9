//! The control server's bounds, on a real socket and a real (runner-less) host.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;

use super::ControlServer;
use crate::control::{ControlClient, ControlLimits};
use crate::{Host, HostConfig};

/// Far longer than any bound under test: a wait that reaches it is a failure.
const PATIENCE: Duration = Duration::from_secs(10);

async fn host(dir: &Path) -> Arc<Host> {
    let mut config = HostConfig::default();
    config.host.enable_builtin = false;
    config.host.data_dir = dir.join("data");
    let loaded = config.resolve(None, dir).expect("a valid configuration");
    Arc::new(Host::start(loaded).await.expect("the host starts"))
}

/// Waits for the server to close `stream`: a read that ends (EOF or reset) rather than
/// data. Panics after [`PATIENCE`].
async fn closed_by_server(stream: &mut UnixStream, what: &str) {
    let mut buf = [0u8; 64];
    match tokio::time::timeout(PATIENCE, stream.read(&mut buf)).await {
        Ok(Ok(0) | Err(_)) => {}
        Ok(Ok(n)) => panic!("{what}: the server sent {n} bytes instead of closing"),
        Err(_) => panic!("{what}: still open after {PATIENCE:?}"),
    }
}

async fn wait_open(server: &ControlServer, count: usize) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while server.open_connections() != count {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{} connections open, expected {count}",
            server.open_connections()
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn idle_and_half_sent_connections_are_closed_and_status_still_answers() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path()).await;
    let path = dir.path().join("control.sock");
    let limits = ControlLimits {
        max_connections: 64,
        idle_timeout: Duration::from_millis(200),
    };
    let server = ControlServer::bind_with_limits(&path, limits)
        .await
        .unwrap();
    server.serve(host.clone());
    let mut silent = UnixStream::connect(&path).await.unwrap();
    let mut half = UnixStream::connect(&path).await.unwrap();
    // A length prefix announcing 100 bytes, and 3 of them.
    half.write_all(&[0, 0, 0, 100, 1, 2, 3]).await.unwrap();
    closed_by_server(&mut silent, "a connection that sent nothing").await;
    closed_by_server(&mut half, "a connection that sent half a frame").await;
    wait_open(&server, 0).await;
    let client = ControlClient::connect(&path).await.expect("serve answers");
    let status = client.status().await.expect("status answers");
    assert!(status["runners"].is_array(), "{status}");
    drop(server);
    host.shutdown().await;
}

#[tokio::test]
async fn at_the_cap_a_new_connection_closes_the_one_idle_longest() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path()).await;
    let path = dir.path().join("control.sock");
    let limits = ControlLimits {
        max_connections: 4,
        idle_timeout: Duration::from_secs(3600),
    };
    let server = ControlServer::bind_with_limits(&path, limits)
        .await
        .unwrap();
    server.serve(host.clone());
    let mut idle = Vec::new();
    for count in 1..=4 {
        idle.push(UnixStream::connect(&path).await.unwrap());
        wait_open(&server, count).await;
    }
    // A fifth connection: the first, idle the longest, makes room for it.
    let client = ControlClient::connect(&path).await.expect("serve answers");
    let status = client.status().await.expect("status answers at the cap");
    assert!(status["runners"].is_array(), "{status}");
    closed_by_server(&mut idle[0], "the connection idle the longest").await;
    assert_eq!(server.open_connections(), 4, "never more than the cap");
    // The others are still open: a read finds nothing to read yet.
    for (index, stream) in idle.iter_mut().enumerate().skip(1) {
        let mut buf = [0u8; 1];
        match stream.try_read(&mut buf) {
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {}
            other => panic!("idle connection {index} was closed too: {other:?}"),
        }
    }
    drop(server);
    host.shutdown().await;
}

#[tokio::test]
async fn only_a_stale_socket_is_replaced_and_only_our_own_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    // A regular file and a directory are refused and left as they are.
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "keep me").unwrap();
    let err = ControlServer::bind(&file).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{} is a regular file, not a socket: refusing to replace it (remove it, or choose another --control-socket or host.control_socket)",
            file.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
    let err = ControlServer::bind(dir.path()).await.unwrap_err();
    assert!(
        err.to_string().contains("is a directory, not a socket"),
        "{err}"
    );

    // A socket nobody listens on any more is stale: replaced.
    let path = dir.path().join("control.sock");
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    let server = ControlServer::bind(&path)
        .await
        .expect("a stale socket is replaced");
    // A second bind while the first serves is refused, and leaves the first alone.
    let err = ControlServer::bind(&path).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "another maitool serve is already running on {}",
            path.display()
        )
    );
    assert!(path.exists(), "the running server's socket is still there");
    drop(server);
    assert!(!path.exists(), "the server removes its own socket");

    // Something that took the path's place meanwhile is not the server's to remove.
    let server = ControlServer::bind(&path).await.unwrap();
    std::fs::remove_file(&path).unwrap();
    std::fs::write(&path, "someone else's").unwrap();
    drop(server);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "someone else's");
}

/// The OS's reason is the source, not also in the message, so that the CLI's error chain
/// (anyhow's `{:#}`) shows it once.
#[tokio::test]
async fn a_socket_that_cannot_be_created_keeps_the_os_error_as_its_source() {
    let path = Path::new("/proc/maitool-no-such-dir/control.sock");
    let err = ControlServer::bind(path).await.unwrap_err();
    assert!(
        matches!(err, super::ControlSocketError::Io { .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "cannot open the control socket /proc/maitool-no-such-dir/control.sock"
    );
    crate::error_text::io_source(&err);
}

#[tokio::test]
async fn a_frame_that_is_not_messagepack_is_answered_with_an_error_and_its_connection_closed() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path()).await;
    let path = dir.path().join("control.sock");
    // The default limits: the idle deadline (30 s) is far beyond PATIENCE, so a close within
    // PATIENCE is the server's answer to the frame, not the deadline.
    let server = ControlServer::bind(&path).await.unwrap();
    server.serve(host.clone());
    let mut garbage = UnixStream::connect(&path).await.unwrap();
    garbage
        .write_all(&[0x00, 0x00, 0x00, 0x05, b'h', b'e', b'l', b'l', b'o'])
        .await
        .unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(PATIENCE, garbage.read_to_end(&mut answer))
        .await
        .expect("the server answers and closes before the idle deadline")
        .expect("the answer reads");
    let length = u32::from_be_bytes(answer[..4].try_into().unwrap()) as usize;
    assert_eq!(
        answer.len(),
        4 + length,
        "one frame, then the end: {answer:?}"
    );
    let envelope: serde_json::Value = rmp_serde::from_slice(&answer[4..]).unwrap();
    assert_eq!(envelope["message_type"], "response", "{envelope}");
    assert_eq!(envelope["request_id"], 0, "{envelope}");
    assert_eq!(envelope["error"]["code"], "E_BAD_PAYLOAD", "{envelope}");
    let message = envelope["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("undecodable frame"), "{message}");
    wait_open(&server, 0).await;
    let client = ControlClient::connect(&path).await.expect("serve answers");
    let status = client.status().await.expect("status answers");
    assert!(status["runners"].is_array(), "{status}");
    drop(server);
    host.shutdown().await;
}
