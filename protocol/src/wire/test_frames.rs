//! Hand-made frames that no maitool encoder writes, shared by the wire and RPC tests.

/// A request whose header does not decode (`method` is an integer) but whose id and type
/// can be read, so that it must be answered; `payload`, already encoded, is its last entry,
/// and `trailing` follows the map.
pub(crate) fn broken_request(request_id: u64, payload: Option<&[u8]>, trailing: &[u8]) -> Vec<u8> {
    let mut frame = Vec::new();
    let entries = if payload.is_some() { 4 } else { 3 };
    rmp::encode::write_map_len(&mut frame, entries).unwrap();
    rmp::encode::write_str(&mut frame, "request_id").unwrap();
    rmp::encode::write_uint(&mut frame, request_id).unwrap();
    rmp::encode::write_str(&mut frame, "message_type").unwrap();
    rmp::encode::write_str(&mut frame, "request").unwrap();
    rmp::encode::write_str(&mut frame, "method").unwrap();
    rmp::encode::write_uint(&mut frame, 123).unwrap();
    if let Some(payload) = payload {
        rmp::encode::write_str(&mut frame, "payload").unwrap();
        frame.extend_from_slice(payload);
    }
    frame.extend_from_slice(trailing);
    frame
}

/// A value nested `levels` arrays deep around a nil.
pub(crate) fn nested_arrays(levels: usize) -> Vec<u8> {
    let mut value = vec![0x91; levels];
    value.push(0xc0);
    value
}
