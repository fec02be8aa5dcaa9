//! Reads a `#[tool]` function's parameters: which become the model's arguments (fields of a
//! generated argument struct, or one argument type marked `#[args]`) and which receive the
//! `ToolContext`; and builds the `Tool::new(...)` expression that calls the function.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Attribute, FnArg, Ident, Pat, Signature, Type};

use crate::derives::crate_paths;
use crate::options::ToolOptions;

/// How one parameter of the function is passed in the call.
enum CallArg {
    /// A field of the generated argument struct.
    Field(Ident),
    /// The whole argument value (a parameter marked `#[args]`).
    Whole,
    /// The `ToolContext`, by value.
    Context,
    /// The `ToolContext`, by reference.
    ContextRef,
}

/// A field of the generated argument struct: the parameter's attributes (doc comments,
/// `serde`/`schemars` attributes), name and type.
struct Field {
    attrs: Vec<Attribute>,
    ident: Ident,
    ty: Type,
}

/// What the macro learned from the signature.
pub(crate) struct Parameters {
    fields: Vec<Field>,
    whole: Option<Type>,
    call: Vec<CallArg>,
}

impl Parameters {
    /// Reads `sig`'s parameters and removes their attributes, which Rust does not accept on
    /// function parameters (they go to the generated struct's fields). A method must take
    /// `&self`.
    pub(crate) fn read(sig: &mut Signature, method: bool) -> syn::Result<Parameters> {
        if sig.asyncness.is_none() {
            return Err(syn::Error::new_spanned(
                sig.fn_token,
                "#[tool] needs an `async fn`",
            ));
        }
        if !sig.generics.params.is_empty() {
            return Err(syn::Error::new_spanned(
                &sig.generics,
                "a #[tool] function cannot be generic",
            ));
        }
        let mut parameters = Parameters {
            fields: Vec::new(),
            whole: None,
            call: Vec::new(),
        };
        let mut inputs = sig.inputs.iter_mut();
        if method {
            match inputs.next() {
                Some(FnArg::Receiver(receiver))
                    if receiver.reference.is_some() && receiver.mutability.is_none() => {}
                Some(other) => {
                    return Err(syn::Error::new_spanned(
                        other,
                        "a #[tool] method takes `&self` (shared by concurrent calls: keep \
                         mutable state behind a lock)",
                    ));
                }
                None => {
                    return Err(syn::Error::new_spanned(
                        &sig.ident,
                        "a #[tool] method takes `&self`",
                    ));
                }
            }
        }
        for input in inputs {
            let FnArg::Typed(typed) = input else {
                return Err(syn::Error::new_spanned(
                    input,
                    "`self` is only allowed in a #[tool] method inside a #[tools] impl block",
                ));
            };
            let attrs = std::mem::take(&mut typed.attrs);
            let whole = attrs.iter().any(|attr| {
                attr.path()
                    .segments
                    .last()
                    .is_some_and(|segment| segment.ident == "args")
            });
            if let Some(by_ref) = context_type(&typed.ty) {
                parameters.call.push(if by_ref {
                    CallArg::ContextRef
                } else {
                    CallArg::Context
                });
                continue;
            }
            if whole {
                if parameters.whole.is_some() {
                    return Err(syn::Error::new_spanned(
                        &typed.pat,
                        "only one parameter can be the whole #[args] value",
                    ));
                }
                parameters.whole = Some((*typed.ty).clone());
                parameters.call.push(CallArg::Whole);
                continue;
            }
            if let Type::Reference(_) = &*typed.ty {
                return Err(syn::Error::new_spanned(
                    &typed.ty,
                    "a tool argument must be an owned type (String, not &str): it is \
                     deserialized from the call's arguments",
                ));
            }
            let Pat::Ident(pat) = &*typed.pat else {
                return Err(syn::Error::new_spanned(
                    &typed.pat,
                    "a tool argument must be a plain name: it is the argument's name in the schema",
                ));
            };
            parameters.fields.push(Field {
                attrs,
                ident: pat.ident.clone(),
                ty: (*typed.ty).clone(),
            });
            parameters.call.push(CallArg::Field(pat.ident.clone()));
        }
        if parameters.whole.is_some() && !parameters.fields.is_empty() {
            return Err(syn::Error::new_spanned(
                &sig.inputs,
                "with an #[args] parameter, the other parameters can only be the ToolContext",
            ));
        }
        Ok(parameters)
    }

    /// The block that declares the tool: the argument struct (when generated) and
    /// `Tool::new(name, description, handler)` with the options' builder calls. `target` is
    /// the function to call (`roll`), or the method name when `method` (called on `__this`,
    /// an `Arc<Self>` cloned from `self`).
    pub(crate) fn tool(
        &self,
        sig: &Signature,
        options: &ToolOptions,
        description: &str,
        method: bool,
    ) -> TokenStream {
        let name = match &options.name {
            Some(name) => quote!(#name),
            None => {
                let text = sig.ident.to_string();
                let text = text.strip_prefix("r#").unwrap_or(&text).to_owned();
                quote!(#text)
            }
        };
        let (struct_def, args_ty) = match &self.whole {
            Some(ty) => (TokenStream::new(), quote!(#ty)),
            None => {
                let fields = self.fields.iter().map(|field| {
                    let Field { attrs, ident, ty } = field;
                    quote!(#(#attrs)* #ident: #ty,)
                });
                let paths = crate_paths();
                let args = format_ident!("__MaitoolArgs");
                (
                    quote! {
                        #[derive(::maitool_sdk::Deserialize, ::maitool_sdk::JsonSchema)]
                        #paths
                        struct #args { #(#fields)* }
                    },
                    quote!(#args),
                )
            }
        };
        let call_args = self.call.iter().map(|arg| match arg {
            CallArg::Field(ident) => quote!(__args.#ident),
            CallArg::Whole => quote!(__args),
            CallArg::Context => quote!(__ctx),
            CallArg::ContextRef => quote!(&__ctx),
        });
        let ident = &sig.ident;
        let handler = if method {
            quote! {{
                let __this = ::std::sync::Arc::clone(self);
                move |__args: #args_ty, __ctx: ::maitool_sdk::ToolContext| {
                    let __this = ::std::sync::Arc::clone(&__this);
                    async move {
                        ::maitool_sdk::__private::outcome(__this.#ident(#(#call_args),*).await)
                    }
                }
            }}
        } else {
            quote! {
                |__args: #args_ty, __ctx: ::maitool_sdk::ToolContext| async move {
                    ::maitool_sdk::__private::outcome(#ident(#(#call_args),*).await)
                }
            }
        };
        let calls = &options.calls;
        quote! {{
            #struct_def
            ::maitool_sdk::Tool::new(#name, #description, #handler) #(#calls)*
        }}
    }
}

/// `Some(false)` for a `ToolContext` parameter, `Some(true)` for `&ToolContext`.
fn context_type(ty: &Type) -> Option<bool> {
    let (ty, by_ref) = match ty {
        Type::Reference(reference) if reference.mutability.is_none() => (&*reference.elem, true),
        other => (other, false),
    };
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    (last.ident == "ToolContext" && last.arguments.is_empty()).then_some(by_ref)
}

/// The tool's description: `description = "..."`, else the doc comment; an error when both
/// are missing (the model needs it to pick the tool).
pub(crate) fn description(
    options: &ToolOptions,
    attrs: &[Attribute],
    ident: &Ident,
) -> syn::Result<String> {
    if let Some(text) = &options.description {
        return Ok(text.value());
    }
    crate::options::doc_text(attrs).ok_or_else(|| {
        syn::Error::new_spanned(
            ident,
            "a #[tool] needs a description: write a doc comment (`/// Rolls a die.`) or \
             #[tool(description = \"...\")]",
        )
    })
}
