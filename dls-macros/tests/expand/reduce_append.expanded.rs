fn evens(v: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    {
        let () = {
            let __dls_ty_0 = ::dls::__private::type_of(&out);
            ::dls::__private::items_travel(&out);
            let __dls_items = ::dls::__private::borrowed(v);
            let (__dls_result_0,) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "ss",
                )
                .run_iterates(
                    (::dls::__private::append_partial(__dls_ty_0),),
                    0..__dls_items.len(),
                    || (::dls::__private::append_identity(__dls_ty_0),),
                    |__dls_iterates, __dls_acc| {
                        for __dls_index in __dls_iterates {
                            let x = &__dls_items[__dls_index];
                            #[allow(unused_mut)]
                            let mut out = ::dls::__private::AppendSlot::new(
                                &mut __dls_acc.0,
                                __dls_index,
                            );
                            let () = {
                                if x % 2 == 0 {
                                    out.push(*x);
                                }
                            };
                        }
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::AppendBuf::merge(__dls_a.0, __dls_b.0),
                    ),
                );
            ::dls::__private::append(__dls_result_0, &mut out);
        };
    }
    out
}
