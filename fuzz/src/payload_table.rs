//! Every type that travels on the wire, indexed so that one input byte picks the type and
//! the encoding the rest of the input is decoded as.

use std::any::type_name;
use std::io::Cursor;

use maitool_host::llm::ModelApi;
use maitool_protocol::ToolDefinition;
use maitool_protocol::model::{
    BinaryData, ContentType, ProviderType, ToolAnnotation, ToolAvailabilityContext,
    ToolContentItem, ToolExecutionContext, ToolExecutionResult, ToolIcon, ToolInvocation, ToolSpec,
};
use maitool_protocol::wire::methods::{
    AckPayload, CapabilityRequestPayload, CapabilityResponsePayload, ComponentDeclaration,
    ConfigUpdatedPayload, ConfigUpdatedResponse, HealthPayload, HelloPayload, HelloResponsePayload,
    InvokePayload, InvokeResultPayload, LogBatchPayload, LogEntry, PluginBootstrap,
    RegisterComponentsPayload, RegisterComponentsResponse, RunnerReadyPayload, ShutdownPayload,
};
use maitool_protocol::wire::{
    CancelPayload, EmptyPayload, ErrorBody, ErrorCode, MessageType, WireError, decode_payload,
};
use serde::Serialize;
use serde::de::{DeserializeOwned, IgnoredAny};

use crate::frames::frame_with_payload;
use crate::round_trip::{self, Format};

/// One wire type: its name and the check the `payloads` target runs on input decoded as it.
#[derive(Debug)]
pub struct PayloadType {
    /// `std::any::type_name` of the type.
    pub name: &'static str,
    check: fn(Format, &[u8]),
}

macro_rules! table {
    ($($ty:ty),* $(,)?) => {
        /// The wire types, in selector order. Append only: the committed seeds start with
        /// their type's selector byte.
        pub fn payload_types() -> Vec<PayloadType> {
            vec![$(PayloadType { name: type_name::<$ty>(), check: check::<$ty> }),*]
        }
    };
}

table!(
    HelloPayload,
    HelloResponsePayload,
    PluginBootstrap,
    ComponentDeclaration,
    RegisterComponentsPayload,
    RegisterComponentsResponse,
    RunnerReadyPayload,
    InvokePayload,
    InvokeResultPayload,
    HealthPayload,
    ShutdownPayload,
    AckPayload,
    ConfigUpdatedPayload,
    ConfigUpdatedResponse,
    CapabilityRequestPayload,
    CapabilityResponsePayload,
    LogEntry,
    LogBatchPayload,
    CancelPayload,
    EmptyPayload,
    ErrorBody,
    ErrorCode,
    MessageType,
    ToolSpec,
    ToolInvocation,
    ToolExecutionResult,
    ToolExecutionContext,
    ToolAvailabilityContext,
    ToolContentItem,
    ContentType,
    ToolAnnotation,
    ToolIcon,
    BinaryData,
    ProviderType,
    ToolDefinition,
    ModelApi,
);

/// Runs the check of the type and format that `data[0]` selects on the rest of `data`.
pub fn run(data: &[u8]) {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let types = payload_types();
    let index = selector as usize % (2 * types.len());
    let format = if index.is_multiple_of(2) {
        Format::MsgPack
    } else {
        Format::Json
    };
    (types[index / 2].check)(format, body);
}

/// The byte that makes [`run`] decode the rest of its input as `T` in `format`.
pub fn selector<T>(format: Format) -> u8 {
    let name = type_name::<T>();
    let index = payload_types()
        .iter()
        .position(|t| t.name == name)
        .unwrap_or_else(|| panic!("{name} is not in the payload table"));
    let selector = 2 * index + usize::from(format == Format::Json);
    u8::try_from(selector).expect("fewer than 128 types")
}

/// A seed for [`run`]: the selector byte of `T` in `format`, then `value` so encoded.
pub fn seed<T: Serialize>(format: Format, value: &T) -> Vec<u8> {
    let mut out = vec![selector::<T>(format)];
    out.extend(round_trip::encode(format, value));
    out
}

fn check<T: Serialize + DeserializeOwned>(format: Format, data: &[u8]) {
    if let Ok(value) = round_trip::decode::<T>(format, data) {
        round_trip::check(format, &value);
    }
    if format == Format::MsgPack {
        same_inside_a_frame::<T>(data);
    }
}

/// `decode_payload` finds the payload inside a frame with its own walker (`wire/skip.rs`)
/// before serde sees it: a payload inside a frame must decode exactly as it does on its own,
/// nil and absent payloads reading as an empty map.
fn same_inside_a_frame<T: Serialize + DeserializeOwned>(payload: &[u8]) {
    let framed = decode_payload::<T>(&frame_with_payload(payload));
    // Trailing bytes after the value turn the frame into garbage; only a payload that is
    // exactly one value has a standalone meaning to compare with.
    if !is_one_value(payload) {
        return;
    }
    let alone = match rmp_serde::from_slice::<Option<T>>(payload) {
        Ok(Some(value)) => Ok(value),
        Ok(None) => rmp_serde::from_slice::<T>(&[0x80]),
        Err(err) => Err(err),
    };
    match (alone, framed) {
        (Ok(alone), Ok(framed)) => assert_eq!(
            round_trip::encode(Format::MsgPack, &alone),
            round_trip::encode(Format::MsgPack, &framed),
            "{} decodes differently inside a frame",
            type_name::<T>()
        ),
        (Err(_), Err(_)) => {}
        // The frame is one level deeper, so a payload at the depth limit may fail only there.
        (Ok(_), Err(WireError::Decode(rmp_serde::decode::Error::DepthLimitExceeded))) => {}
        (alone, framed) => panic!(
            "{}: alone {:?}, inside a frame {:?}",
            type_name::<T>(),
            alone.map(|_| "ok").map_err(|e| e.to_string()),
            framed.map(|_| "ok").map_err(|e| e.to_string()),
        ),
    }
}

fn is_one_value(bytes: &[u8]) -> bool {
    let mut de = rmp_serde::Deserializer::new(Cursor::new(bytes));
    serde::Deserialize::deserialize(&mut de).is_ok_and(|_: IgnoredAny| true)
        && de.position() == bytes.len() as u64
}
