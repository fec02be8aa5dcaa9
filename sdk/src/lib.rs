//! The maitool plugin SDK.
