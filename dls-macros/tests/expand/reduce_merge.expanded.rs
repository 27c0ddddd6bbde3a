fn histogram(v: &[u8]) -> Vec<u64> {
    let mut counts: Vec<u64> = Vec::new();
    {
        let () = {
            ::dls::__private::interior(
                ::core::concat!(::core::file!(), ":", ::core::line!()),
                &[
                    (
                        ::core::stringify!(v),
                        {
                            #[allow(unused_imports)]
                            use ::dls::__private::FoundInterior as _;
                            #[allow(unused_imports)]
                            use ::dls::__private::NoInterior as _;
                            (&::dls::__private::Probe(&v)).interior()
                        },
                    ),
                ],
            );
            ::dls::__private::travels(&counts);
            let __dls_op_0 = ::dls::__private::Merge(support::add_counts);
            let __dls_ty_0 = ::dls::__private::type_of(&counts);
            let (__dls_result_0,) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "ss",
                )
                .ordered()
                .run_iterates(
                    (::dls::__private::type_of(&counts),),
                    0..v.len(),
                    || (::dls::__private::identity(&__dls_op_0, __dls_ty_0),),
                    |__dls_iterates, __dls_acc| {
                        ::dls::__private::with_captured_1(
                            {
                                #[allow(unused_imports)]
                                use ::dls::__private::CaptureOfRef as _;
                                #[allow(unused_imports)]
                                use ::dls::__private::CaptureOfAny as _;
                                (&&::dls::__private::Captured(&v)).__dls_capture()
                            },
                            |__dls_cap_0| {
                                #[allow(unused_mut)]
                                let mut counts = ::core::mem::take(&mut __dls_acc.0);
                                let __dls_note_0 = ::dls::__private::default_start_note(
                                    &__dls_op_0,
                                    &counts,
                                    ::core::stringify!(counts),
                                );
                                for __dls_index in __dls_iterates {
                                    let i = __dls_index;
                                    let () = {
                                        #[allow(clippy::needless_range_loop)]
                                        let () = {
                                            counts = support::one((*__dls_cap_0.get())[i]);
                                        };
                                    };
                                }
                                __dls_acc.0 = counts;
                            },
                        )
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::Operator::combine(
                            &__dls_op_0,
                            __dls_a.0,
                            __dls_b.0,
                        ),
                    ),
                );
            counts = ::dls::__private::Operator::combine(
                &__dls_op_0,
                counts,
                __dls_result_0,
            );
        };
    }
    counts
}
