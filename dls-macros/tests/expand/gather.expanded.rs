fn squares(out: &mut [f64], n: usize) -> Vec<f64> {
    let mut v = vec![0.0; n];
    {
        let () = {
            let __dls_range = 0..n;
            #[allow(unused_variables)]
            let __dls_in_place = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "gss",
                )
                .reads_in_place()
                .writes_in_place();
            let __dls_assigned_in_place = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "gss",
                )
                .reads_in_place()
                .writes_assigned_in_place();
            #[allow(unused_variables)]
            let __dls_assigned_exchanged = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "gss",
                )
                .reads_in_place()
                .exchanges_assigned_in_place();
            ::dls::__private::gathers(&v);
            let __dls_exchange_0 = {
                #[allow(unused_imports)]
                use ::dls::__private::GatherOfPlain as _;
                #[allow(unused_imports)]
                use ::dls::__private::GatherOfAny as _;
                (&&::dls::__private::gather_of(&v)).__dls_exchange()
            };
            let __dls_owner_0 = __dls_exchange_0.owner(__dls_assigned_exchanged);
            let __dls_when_0 = __dls_assigned_in_place || __dls_owner_0.is_some();
            let __dls_target_0 = {
                use ::dls::__private::ScatterTarget as _;
                v.scatter_elements()
            };
            let __dls_place_0 = unsafe {
                ::dls::__private::Place::new(__dls_target_0, __dls_when_0)
            }
                .exchanged(__dls_owner_0);
            ::dls::__private::gathers(&out);
            let __dls_target_1 = {
                use ::dls::__private::ScatterTarget as _;
                out.scatter_elements()
            };
            let __dls_place_1 = unsafe {
                ::dls::__private::Place::new(__dls_target_1, __dls_in_place)
            };
            let (__dls_result_0, __dls_result_1) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "gss",
                )
                .reads_in_place()
                .run_iterates(
                    (
                        {
                            #[allow(unused_imports)]
                            use ::dls::__private::GatherOfPlain as _;
                            #[allow(unused_imports)]
                            use ::dls::__private::GatherOfAny as _;
                            (&&::dls::__private::gather_of_place(&__dls_place_0))
                                .__dls_gather_slot()
                        },
                        {
                            #[allow(unused_imports)]
                            use ::dls::__private::GatherOfPlain as _;
                            #[allow(unused_imports)]
                            use ::dls::__private::GatherOfAny as _;
                            (&&::dls::__private::gather_of_place(&__dls_place_1))
                                .__dls_gather_slot()
                        },
                    ),
                    __dls_range,
                    || (
                        ::dls::__private::GatherBuf::new(),
                        ::dls::__private::GatherBuf::new(),
                    ),
                    |__dls_iterates, __dls_acc| {
                        let __dls_copy = __dls_iterates.is_copy();
                        #[allow(unused_mut)]
                        let mut v = ::dls::__private::GatherWriter::of_run(
                            &__dls_place_0,
                            &mut __dls_acc.0,
                            __dls_copy,
                        );
                        for __dls_index in __dls_iterates {
                            let i = __dls_index;
                            #[allow(unused_mut)]
                            let mut out = ::dls::__private::GatherAccess::new(
                                &__dls_place_1,
                                &mut __dls_acc.1,
                            );
                            let () = {
                                ::dls::__private::GatherWriter::set(
                                    &mut v,
                                    i,
                                    (i * i) as f64,
                                );
                                out[i] += 1.0;
                            };
                        }
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::GatherBuf::merge(__dls_a.0, __dls_b.0),
                        ::dls::__private::GatherBuf::merge(__dls_a.1, __dls_b.1),
                    ),
                );
            ::dls::__private::scatter_exchanged(
                __dls_result_0,
                {
                    use ::dls::__private::ScatterTarget as _;
                    v.scatter_elements()
                },
                __dls_exchange_0,
                ::core::stringify!(v),
                ::core::concat!(::core::file!(), ":", ::core::line!()),
            );
            ::dls::__private::scatter(
                __dls_result_1,
                {
                    use ::dls::__private::ScatterTarget as _;
                    out.scatter_elements()
                },
                ::core::stringify!(out),
                ::core::concat!(::core::file!(), ":", ::core::line!()),
            );
        };
    }
    v
}
