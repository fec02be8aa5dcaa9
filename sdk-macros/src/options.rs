//! The options of `#[tool(...)]`, each mapped to a builder call of `maitool_sdk::Tool`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Expr, ExprLit, Lit, LitStr, Meta};

/// What `#[tool(...)]` says; everything left out keeps the builder's default.
#[derive(Default)]
pub(crate) struct ToolOptions {
    pub name: Option<LitStr>,
    pub description: Option<LitStr>,
    /// Builder calls, in the order written.
    pub calls: Vec<TokenStream>,
}

impl ToolOptions {
    /// Parses the attribute's arguments.
    pub(crate) fn parse(attr: TokenStream) -> syn::Result<ToolOptions> {
        let mut options = ToolOptions::default();
        if attr.is_empty() {
            return Ok(options);
        }
        let parser = syn::meta::parser(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(|ident| ident.to_string())
                .unwrap_or_default();
            match key.as_str() {
                "name" => options.name = Some(meta.value()?.parse()?),
                "description" => options.description = Some(meta.value()?.parse()?),
                "title" => {
                    let title: LitStr = meta.value()?.parse()?;
                    options.calls.push(quote!(.title(#title)));
                }
                "core" => options.calls.push(quote!(.core_tool())),
                "deferred" => options
                    .calls
                    .push(quote!(.visibility(::maitool_sdk::Visibility::Deferred))),
                "hidden" => options
                    .calls
                    .push(quote!(.visibility(::maitool_sdk::Visibility::Hidden))),
                "timeout_ms" => {
                    let ms: syn::LitInt = meta.value()?.parse()?;
                    ms.base10_parse::<u64>()?;
                    options
                        .calls
                        .push(quote!(.timeout(::std::time::Duration::from_millis(#ms))));
                }
                "enabled" => {
                    let enabled: syn::LitBool = meta.value()?.parse()?;
                    options.calls.push(quote!(.enabled(#enabled)));
                }
                "chat_scope" => {
                    let scope: LitStr = meta.value()?.parse()?;
                    let variant = match scope.value().as_str() {
                        "all" => quote!(All),
                        "group" => quote!(Group),
                        "private" => quote!(Private),
                        _ => {
                            return Err(syn::Error::new_spanned(
                                scope,
                                "chat_scope is \"all\", \"group\" or \"private\"",
                            ));
                        }
                    };
                    options
                        .calls
                        .push(quote!(.chat_scope(::maitool_sdk::ChatScope::#variant)));
                }
                "output" => {
                    let ty: syn::Type = meta.value()?.parse()?;
                    options.calls.push(quote!(.output::<#ty>()));
                }
                "platforms" => {
                    let names = platform_names(meta.value()?.parse()?)?;
                    options.calls.push(quote!(.platforms([#(#names),*])));
                }
                "stop_after_execution" => options.calls.push(quote!(.stop_after_execution())),
                _ => {
                    return Err(meta.error(
                        "unknown #[tool] option; expected name, description, title, core, \
                         deferred, hidden, timeout_ms, enabled, chat_scope, output, platforms \
                         or stop_after_execution",
                    ));
                }
            }
            Ok(())
        });
        syn::parse::Parser::parse2(parser, attr)?;
        Ok(options)
    }
}

/// `platforms = "telegram"` or `platforms = ["telegram", "qq"]`: the names, each a non-empty
/// string literal.
fn platform_names(value: Expr) -> syn::Result<Vec<LitStr>> {
    let literals = match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(name),
            ..
        }) => vec![name],
        Expr::Array(array) => array
            .elems
            .into_iter()
            .map(|element| match element {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(name),
                    ..
                }) => Ok(name),
                other => Err(syn::Error::new_spanned(
                    other,
                    "platforms are string literals: platforms = [\"telegram\", \"qq\"]",
                )),
            })
            .collect::<syn::Result<_>>()?,
        other => {
            return Err(syn::Error::new_spanned(
                other,
                "platforms is a platform name or a list of them: platforms = \"telegram\" or \
                 platforms = [\"telegram\", \"qq\"]",
            ));
        }
    };
    for name in &literals {
        if name.value().trim().is_empty() {
            return Err(syn::Error::new_spanned(
                name,
                "a platform name cannot be empty",
            ));
        }
    }
    Ok(literals)
}

/// The text of `///` doc comments (`#[doc = "..."]`), as rustdoc would join them: one line
/// each, the single space after `///` removed, surrounding blank lines dropped.
pub(crate) fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text),
                    ..
                }) => Some(text.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| {
            line.strip_prefix(' ')
                .unwrap_or(&line)
                .trim_end()
                .to_owned()
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}
