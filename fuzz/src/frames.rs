//! Frames built by hand, byte by byte, so a fuzzed payload can be put on the wire verbatim
//! (the envelope encoder would re-encode it).

/// A request frame body whose `payload` entry holds `payload` as it is, between other
/// entries, as a MaiBot peer lays them out.
pub fn frame_with_payload(payload: &[u8]) -> Vec<u8> {
    use rmp::encode::{write_map_len, write_str, write_uint};
    let mut frame = Vec::with_capacity(96 + payload.len());
    let write = |frame: &mut Vec<u8>| -> Result<(), rmp::encode::ValueWriteError> {
        write_map_len(frame, 5)?;
        write_str(frame, "request_id")?;
        write_uint(frame, 7)?;
        write_str(frame, "message_type")?;
        write_str(frame, "request")?;
        write_str(frame, "method")?;
        write_str(frame, "plugin.invoke_tool")?;
        write_str(frame, "payload")?;
        frame.extend_from_slice(payload);
        write_str(frame, "plugin_id")?;
        write_str(frame, "demo")?;
        Ok(())
    };
    write(&mut frame).expect("writing to a Vec cannot fail");
    frame
}

/// `body` behind its 4-byte big-endian length prefix, as the frame codec sends it.
pub fn length_prefixed(body: &[u8]) -> Vec<u8> {
    let len = u32::try_from(body.len()).expect("seed frames are small");
    let mut out = Vec::with_capacity(4 + body.len());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(body);
    out
}
