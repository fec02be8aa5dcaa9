//! Tests of the provider's filters, discovery, exposure, the executor and seeding, through a
//! real [`ToolRegistry`](crate::registry::ToolRegistry) and a real store.

mod discovery;
mod executor;
mod filters;
mod fixtures;
mod seed;
