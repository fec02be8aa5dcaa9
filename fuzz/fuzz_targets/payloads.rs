//! Every typed payload of `wire/methods.rs` and every model type that travels on the wire,
//! decoded from MessagePack and from JSON: no panic, and a value that decodes survives a
//! round trip; as MessagePack it must also decode the same inside a frame as on its own.
//!
//! Input: one byte picks the type and the encoding (see `maitool_fuzz::payload_table`), the
//! rest is the encoded value.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| maitool_fuzz::payload_table::run(data));
