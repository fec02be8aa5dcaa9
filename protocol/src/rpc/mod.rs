//! The multiplexed RPC peer.
