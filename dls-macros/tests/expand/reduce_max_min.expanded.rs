fn extremes(v: &[f64]) -> (f64, f64, f64) {
    let mut hi = f64::NEG_INFINITY;
    let mut hi2 = f64::NEG_INFINITY;
    let mut lo = f64::INFINITY;
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
            ::dls::__private::travels(&hi);
            let __dls_op_0 = ::dls::__private::Max;
            ::dls::__private::travels(&hi2);
            let __dls_op_1 = ::dls::__private::Max;
            ::dls::__private::travels(&lo);
            let __dls_op_2 = ::dls::__private::Min;
            let (__dls_result_0, __dls_result_1, __dls_result_2) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "af",
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
                                ::dls::__private::type_of(&hi),
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
                                ::dls::__private::type_of(&hi2),
                            ))
                                .__dls_slot()
                        },
                        {
                            #[allow(unused_imports)]
                            use ::dls::__private::SlotOfMap as _;
                            #[allow(unused_imports)]
                            use ::dls::__private::SlotOfAny as _;
                            (&&::dls::__private::slot_of(
                                &__dls_op_2,
                                ::dls::__private::type_of(&lo),
                            ))
                                .__dls_slot()
                        },
                    ),
                    0..v.len(),
                    || (
                        ::dls::__private::identity_like(&__dls_op_0, &hi),
                        ::dls::__private::identity_like(&__dls_op_1, &hi2),
                        ::dls::__private::identity_like(&__dls_op_2, &lo),
                    ),
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
                                let mut hi = ::core::mem::take(&mut __dls_acc.0);
                                #[allow(unused_mut)]
                                let mut hi2 = ::core::mem::take(&mut __dls_acc.1);
                                #[allow(unused_mut)]
                                let mut lo = ::core::mem::take(&mut __dls_acc.2);
                                for __dls_index in __dls_iterates {
                                    let i = __dls_index;
                                    let () = {
                                        #[allow(clippy::needless_range_loop)]
                                        let () = {
                                            hi = hi.max((*__dls_cap_0.get())[i]);
                                            hi2 = hi2.max(2.0 * (*__dls_cap_0.get())[i]);
                                            lo = lo.min((*__dls_cap_0.get())[i]);
                                        };
                                    };
                                }
                                __dls_acc.0 = hi;
                                __dls_acc.1 = hi2;
                                __dls_acc.2 = lo;
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
                        ::dls::__private::Operator::combine(
                            &__dls_op_2,
                            __dls_a.2,
                            __dls_b.2,
                        ),
                    ),
                );
            hi = ::dls::__private::Operator::combine(&__dls_op_0, hi, __dls_result_0);
            hi2 = ::dls::__private::Operator::combine(&__dls_op_1, hi2, __dls_result_1);
            lo = ::dls::__private::Operator::combine(&__dls_op_2, lo, __dls_result_2);
        };
    }
    (hi, hi2, lo)
}
