fn nested(sizes: &[u64]) -> u64 {
    let mut total = 0_u64;
    {
        let () = {
            ::dls::__private::interior(
                ::core::concat!(::core::file!(), ":", ::core::line!()),
                &[
                    (
                        ::core::stringify!(sizes),
                        {
                            #[allow(unused_imports)]
                            use ::dls::__private::FoundInterior as _;
                            #[allow(unused_imports)]
                            use ::dls::__private::NoInterior as _;
                            (&::dls::__private::Probe(&sizes)).interior()
                        },
                    ),
                ],
            );
            ::dls::__private::travels(&total);
            let __dls_op_0 = {
                #[allow(unused_imports)]
                use ::dls::__private::PickBuiltIn as _;
                #[allow(unused_imports)]
                use ::dls::__private::PickAdd as _;
                #[allow(unused_imports)]
                use ::dls::__private::PickAny as _;
                (&&&::dls::__private::pick(
                    ::dls::__private::Sum,
                    ::dls::__private::type_of(&total),
                ))
                    .__dls_operator()
            };
            let (__dls_result_0,) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "af",
                )
                .groups(2usize, 4usize)
                .run_2d(
                    (
                        {
                            #[allow(unused_imports)]
                            use ::dls::__private::SlotOfMap as _;
                            #[allow(unused_imports)]
                            use ::dls::__private::SlotOfAny as _;
                            (&&::dls::__private::slot_of(
                                &__dls_op_0,
                                ::dls::__private::type_of(&total),
                            ))
                                .__dls_slot()
                        },
                    ),
                    0..sizes.len(),
                    || (::dls::__private::identity_like(&__dls_op_0, &total),),
                    |__dls_index, __dls_inner, __dls_acc| {
                        let j = __dls_index;
                        #[allow(unused_mut)]
                        let mut total = ::core::mem::take(&mut __dls_acc.0);
                        let __dls_note_0 = ::dls::__private::default_start_note(
                            &__dls_op_0,
                            &total,
                            ::core::stringify!(total),
                        );
                        let () = {
                            let n = sizes[j];
                            let mut s = 0_u64;
                            {
                                let () = {
                                    ::dls::__private::travels(&s);
                                    let __dls_op_0 = {
                                        #[allow(unused_imports)]
                                        use ::dls::__private::PickBuiltIn as _;
                                        #[allow(unused_imports)]
                                        use ::dls::__private::PickAdd as _;
                                        #[allow(unused_imports)]
                                        use ::dls::__private::PickAny as _;
                                        (&&&::dls::__private::pick(
                                            ::dls::__private::Sum,
                                            ::dls::__private::type_of(&s),
                                        ))
                                            .__dls_operator()
                                    };
                                    let (__dls_result_0,) = ::dls::__private::Loop::new(
                                            ::core::concat!(::core::file!(), ":", ::core::line!()),
                                            "fac2",
                                        )
                                        .run_inner(
                                            __dls_inner,
                                            (
                                                {
                                                    #[allow(unused_imports)]
                                                    use ::dls::__private::SlotOfMap as _;
                                                    #[allow(unused_imports)]
                                                    use ::dls::__private::SlotOfAny as _;
                                                    (&&::dls::__private::slot_of(
                                                        &__dls_op_0,
                                                        ::dls::__private::type_of(&s),
                                                    ))
                                                        .__dls_slot()
                                                },
                                            ),
                                            0..n,
                                            || (::dls::__private::identity_like(&__dls_op_0, &s),),
                                            |__dls_index, __dls_acc| {
                                                let i = __dls_index;
                                                #[allow(unused_mut)]
                                                let mut s = ::core::mem::take(&mut __dls_acc.0);
                                                let __dls_note_0 = ::dls::__private::default_start_note(
                                                    &__dls_op_0,
                                                    &s,
                                                    ::core::stringify!(s),
                                                );
                                                let () = {
                                                    s += i;
                                                };
                                                __dls_acc.0 = s;
                                            },
                                            |__dls_a, __dls_b| (
                                                ::dls::__private::Operator::combine(
                                                    &__dls_op_0,
                                                    __dls_a.0,
                                                    __dls_b.0,
                                                ),
                                            ),
                                        );
                                    s = ::dls::__private::Operator::combine(
                                        &__dls_op_0,
                                        s,
                                        __dls_result_0,
                                    );
                                };
                            }
                            total += s;
                        };
                        __dls_acc.0 = total;
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::Operator::combine(
                            &__dls_op_0,
                            __dls_a.0,
                            __dls_b.0,
                        ),
                    ),
                );
            total = ::dls::__private::Operator::combine(
                &__dls_op_0,
                total,
                __dls_result_0,
            );
        };
    }
    total
}
fn nested_default(m: u64, n: u64) {
    {
        let () = {
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
            let () = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "runtime",
                )
                .groups(1usize, ::core::primitive::usize::MAX)
                .run_2d(
                    (),
                    0..m,
                    || (),
                    |__dls_index, __dls_inner, __dls_acc| {
                        let j = __dls_index;
                        let () = {
                            {
                                let () = {
                                    ::dls::__private::interior(
                                        ::core::concat!(::core::file!(), ":", ::core::line!()),
                                        &[
                                            (
                                                ::core::stringify!(j),
                                                {
                                                    #[allow(unused_imports)]
                                                    use ::dls::__private::FoundInterior as _;
                                                    #[allow(unused_imports)]
                                                    use ::dls::__private::NoInterior as _;
                                                    (&::dls::__private::Probe(&j)).interior()
                                                },
                                            ),
                                        ],
                                    );
                                    let () = ::dls::__private::Loop::new(
                                            ::core::concat!(::core::file!(), ":", ::core::line!()),
                                            "runtime",
                                        )
                                        .run_inner(
                                            __dls_inner,
                                            (),
                                            0..n,
                                            || (),
                                            |__dls_index, __dls_acc| {
                                                let i = __dls_index;
                                                let () = {
                                                    work(j, i);
                                                };
                                            },
                                            |__dls_a, __dls_b| (),
                                        );
                                };
                            }
                        };
                    },
                    |__dls_a, __dls_b| (),
                );
        };
    }
}
