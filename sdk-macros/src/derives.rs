//! `#[args]`, `#[output]`, `#[config]`: the derives an author would write, with the crate
//! paths that make them work in a crate depending on the SDK alone.

use proc_macro2::TokenStream;
use quote::quote;

/// Which derives an attribute adds.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    Args,
    Output,
    Config,
}

pub(crate) fn expand(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let name = match kind {
            Kind::Args => "args",
            Kind::Output => "output",
            Kind::Config => "config",
        };
        return syn::Error::new_spanned(attr, format!("#[{name}] takes no arguments"))
            .to_compile_error();
    }
    let item = match syn::parse2::<syn::DeriveInput>(item) {
        Ok(item) => item,
        Err(err) => return err.to_compile_error(),
    };
    let derives = match kind {
        Kind::Args => quote!(::maitool_sdk::Deserialize, ::maitool_sdk::JsonSchema),
        Kind::Output => quote!(::maitool_sdk::Serialize, ::maitool_sdk::JsonSchema),
        Kind::Config => quote!(
            ::maitool_sdk::Serialize,
            ::maitool_sdk::Deserialize,
            ::maitool_sdk::JsonSchema
        ),
    };
    let crate_paths = crate_paths();
    quote! {
        #[derive(#derives)]
        #crate_paths
        #item
    }
}

/// The `serde` and `schemars` attributes that point their derives at the SDK's re-exports.
pub(crate) fn crate_paths() -> TokenStream {
    quote! {
        #[serde(crate = "::maitool_sdk::serde")]
        #[schemars(crate = "::maitool_sdk::schemars")]
    }
}
