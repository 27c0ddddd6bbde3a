fn nbody(x: &[f64]) -> (Vec<f64>, std::collections::BTreeMap<u8, f64>) {
    let n = x.len();
    let mut forces = vec![0.0; n];
    let mut best = std::collections::BTreeMap::new();
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
                    (
                        ::core::stringify!(x),
                        {
                            #[allow(unused_imports)]
                            use ::dls::__private::FoundInterior as _;
                            #[allow(unused_imports)]
                            use ::dls::__private::NoInterior as _;
                            (&::dls::__private::Probe(&x)).interior()
                        },
                    ),
                ],
            );
            ::dls::__private::travels(&forces);
            let __dls_op_0 = {
                #[allow(unused_imports)]
                use ::dls::__private::PickBuiltIn as _;
                #[allow(unused_imports)]
                use ::dls::__private::PickAdd as _;
                #[allow(unused_imports)]
                use ::dls::__private::PickAny as _;
                (&&&::dls::__private::pick(
                    ::dls::__private::Sum,
                    ::dls::__private::type_of(&forces),
                ))
                    .__dls_operator()
            };
            ::dls::__private::travels(&best);
            let __dls_op_1 = ::dls::__private::Max;
            let (__dls_result_0, __dls_result_1) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "gss",
                )
                .run_iterates(
                    (
                        {
                            #[allow(unused_imports)]
                            use ::dls::__private::SlotOfMap as _;
                            #[allow(unused_imports)]
                            use ::dls::__private::SlotOfAny as _;
                            (&&::dls::__private::slot_of(
                                &__dls_op_0,
                                ::dls::__private::type_of(&forces),
                            ))
                                .__dls_slot()
                        },
                        {
                            #[allow(unused_imports)]
                            use ::dls::__private::SlotOfMap as _;
                            #[allow(unused_imports)]
                            use ::dls::__private::SlotOfAny as _;
                            (&&::dls::__private::slot_of(
                                &__dls_op_1,
                                ::dls::__private::type_of(&best),
                            ))
                                .__dls_slot()
                        },
                    ),
                    0..n,
                    || (
                        ::dls::__private::identity_like(&__dls_op_0, &forces),
                        ::dls::__private::identity_like(&__dls_op_1, &best),
                    ),
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
                                (&&::dls::__private::Captured(&x)).__dls_capture()
                            },
                            |__dls_cap_0, __dls_cap_1| {
                                #[allow(unused_mut)]
                                let mut forces = ::core::mem::take(&mut __dls_acc.0);
                                let __dls_note_0 = ::dls::__private::default_start_note(
                                    &__dls_op_0,
                                    &forces,
                                    ::core::stringify!(forces),
                                );
                                #[allow(unused_mut)]
                                let mut best = ::core::mem::take(&mut __dls_acc.1);
                                for __dls_index in __dls_iterates {
                                    let i = __dls_index;
                                    let () = {
                                        #[allow(clippy::needless_range_loop)]
                                        let () = {
                                            for j in (i + 1)..(*__dls_cap_0.get()) {
                                                let f = 1.0
                                                    / ((*__dls_cap_1.get())[j] - (*__dls_cap_1.get())[i]);
                                                forces[i] += f;
                                                forces[j] -= f;
                                            }
                                            let b = best.entry((i % 2) as u8).or_insert(f64::MIN);
                                            *b = b.max((*__dls_cap_1.get())[i]);
                                        };
                                    };
                                }
                                __dls_acc.0 = forces;
                                __dls_acc.1 = best;
                            },
                        )
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::Operator::combine(
                            &__dls_op_0,
                            __dls_a.0,
                            __dls_b.0,
                        ),
                        ::dls::__private::Operator::combine(
                            &__dls_op_1,
                            __dls_a.1,
                            __dls_b.1,
                        ),
                    ),
                );
            forces = ::dls::__private::Operator::combine(
                &__dls_op_0,
                forces,
                __dls_result_0,
            );
            best = ::dls::__private::Operator::combine(
                &__dls_op_1,
                best,
                __dls_result_1,
            );
        };
    }
    (forces, best)
}
