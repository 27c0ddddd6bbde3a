fn sweep(u: &[f64], n: usize) -> Vec<f64> {
    let mut v = vec![0.0; n * n];
    {
        let () = {
            let __dls_range = 1..n - 1;
            #[allow(unused_variables)]
            let __dls_in_place = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "runtime",
                )
                .reads_in_place()
                .writes_in_place();
            let __dls_assigned_in_place = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "runtime",
                )
                .reads_in_place()
                .writes_assigned_in_place();
            #[allow(unused_variables)]
            let __dls_assigned_exchanged = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "runtime",
                )
                .reads_in_place()
                .exchanges_assigned_in_place();
            ::dls::__private::gathers(&v);
            let __dls_rows_0 = {
                let __dls_width: usize = n;
                __dls_width
            };
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
            let __dls_place_0 = ::dls::__private::block_place(
                unsafe { ::dls::__private::Place::new(__dls_target_0, __dls_when_0) }
                    .exchanged(__dls_owner_0),
                __dls_rows_0,
                &__dls_range,
                ::core::stringify!(v),
                ::core::concat!(::core::file!(), ":", ::core::line!()),
            );
            let (__dls_result_0,) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "runtime",
                )
                .reads_in_place()
                .run_iterates(
                    (::dls::__private::block_partial(&__dls_place_0),),
                    __dls_range,
                    || (::dls::__private::GatherBuf::new(),),
                    |__dls_iterates, __dls_acc| {
                        ::dls::__private::with_captured_2(
                            {
                                #[allow(unused_imports)]
                                use ::dls::__private::CaptureOfRef as _;
                                #[allow(unused_imports)]
                                use ::dls::__private::CaptureOfAny as _;
                                (&&::dls::__private::Captured(&n)).__dls_capture()
                            },
                            {
                                #[allow(unused_imports)]
                                use ::dls::__private::CaptureOfRef as _;
                                #[allow(unused_imports)]
                                use ::dls::__private::CaptureOfAny as _;
                                (&&::dls::__private::Captured(&u)).__dls_capture()
                            },
                            |__dls_cap_0, __dls_cap_1| {
                                let __dls_copy = __dls_iterates.is_copy();
                                for __dls_index in __dls_iterates {
                                    let i = __dls_index;
                                    #[allow(unused_mut)]
                                    let mut v = ::dls::__private::BlockAccess::new(
                                        &__dls_place_0,
                                        &mut __dls_acc.0,
                                        ::dls::__private::block_iterate(__dls_index),
                                        __dls_copy,
                                    );
                                    if ::dls::__private::BlockAccess::in_place(&v) {
                                        ::dls::__private::with_row(
                                            ::dls::__private::BlockAccess::split(&mut v),
                                            |__dls_row_0, __dls_rest_0| {
                                                #[allow(unused_mut)]
                                                let mut v = ::dls::__private::BlockRow::new(
                                                    __dls_row_0,
                                                    __dls_rest_0,
                                                );
                                                let () = {
                                                    #[allow(clippy::needless_range_loop)]
                                                    let () = {
                                                        for j in 1..(*__dls_cap_0.get()) - 1 {
                                                            v.row()[j] = (*__dls_cap_1
                                                                .get())[i * (*__dls_cap_0.get()) + j - 1]
                                                                + (*__dls_cap_1.get())[i * (*__dls_cap_0.get()) + j + 1];
                                                        }
                                                    };
                                                };
                                            },
                                        );
                                    } else {
                                        let () = {
                                            #[allow(clippy::needless_range_loop)]
                                            let () = {
                                                for j in 1..(*__dls_cap_0.get()) - 1 {
                                                    ::dls::__private::BlockSet::set(
                                                        &mut v,
                                                        i * (*__dls_cap_0.get()) + j,
                                                        (*__dls_cap_1.get())[i * (*__dls_cap_0.get()) + j - 1]
                                                            + (*__dls_cap_1.get())[i * (*__dls_cap_0.get()) + j + 1],
                                                    );
                                                }
                                            };
                                        };
                                    }
                                }
                            },
                        )
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::GatherBuf::merge(__dls_a.0, __dls_b.0),
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
        };
    }
    {
        let () = {
            let __dls_range = 0..n;
            #[allow(unused_variables)]
            let __dls_in_place = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "runtime",
                )
                .reads_in_place()
                .writes_in_place();
            ::dls::__private::interior(
                ::core::concat!(::core::file!(), ":", ::core::line!()),
                &[
                    (
                        ::core::stringify!(n),
                        {
                            #[allow(unused_imports)]
                            use ::dls::__private::FoundInterior as _;
                            #[allow(unused_imports)]
                            use ::dls::__private::NoInterior as _;
                            (&::dls::__private::Probe(&n)).interior()
                        },
                    ),
                ],
            );
            ::dls::__private::gathers(&v);
            let __dls_rows_0 = {
                let __dls_width: usize = n;
                __dls_width
            };
            let __dls_target_0 = {
                use ::dls::__private::ScatterTarget as _;
                v.scatter_elements()
            };
            let __dls_place_0 = ::dls::__private::block_place(
                unsafe { ::dls::__private::Place::new(__dls_target_0, __dls_in_place) },
                __dls_rows_0,
                &__dls_range,
                ::core::stringify!(v),
                ::core::concat!(::core::file!(), ":", ::core::line!()),
            );
            let (__dls_result_0,) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "runtime",
                )
                .reads_in_place()
                .run_iterates(
                    (::dls::__private::block_partial(&__dls_place_0),),
                    __dls_range,
                    || (::dls::__private::GatherBuf::new(),),
                    |__dls_iterates, __dls_acc| {
                        ::dls::__private::with_captured_1(
                            {
                                #[allow(unused_imports)]
                                use ::dls::__private::CaptureOfRef as _;
                                #[allow(unused_imports)]
                                use ::dls::__private::CaptureOfAny as _;
                                (&&::dls::__private::Captured(&n)).__dls_capture()
                            },
                            |__dls_cap_0| {
                                let __dls_copy = __dls_iterates.is_copy();
                                for __dls_index in __dls_iterates {
                                    let i = __dls_index;
                                    #[allow(unused_mut)]
                                    let mut v = ::dls::__private::BlockAccess::new(
                                        &__dls_place_0,
                                        &mut __dls_acc.0,
                                        ::dls::__private::block_iterate(__dls_index),
                                        __dls_copy,
                                    );
                                    if ::dls::__private::BlockAccess::in_place(&v) {
                                        ::dls::__private::with_row(
                                            ::dls::__private::BlockAccess::split(&mut v),
                                            |__dls_row_0, __dls_rest_0| {
                                                #[allow(unused_mut)]
                                                let mut v = ::dls::__private::BlockRow::new(
                                                    __dls_row_0,
                                                    __dls_rest_0,
                                                );
                                                let () = {
                                                    #[allow(clippy::needless_range_loop)]
                                                    let () = {
                                                        for j in 0..(*__dls_cap_0.get()) {
                                                            v.row()[j] *= 0.5;
                                                        }
                                                    };
                                                };
                                            },
                                        );
                                    } else {
                                        let () = {
                                            #[allow(clippy::needless_range_loop)]
                                            let () = {
                                                for j in 0..(*__dls_cap_0.get()) {
                                                    v[i * (*__dls_cap_0.get()) + j] *= 0.5;
                                                }
                                            };
                                        };
                                    }
                                }
                            },
                        )
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::GatherBuf::merge(__dls_a.0, __dls_b.0),
                    ),
                );
            ::dls::__private::scatter(
                __dls_result_0,
                {
                    use ::dls::__private::ScatterTarget as _;
                    v.scatter_elements()
                },
                ::core::stringify!(v),
                ::core::concat!(::core::file!(), ":", ::core::line!()),
            );
        };
    }
    v
}
