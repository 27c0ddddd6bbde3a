fn lanes(a: &Array2<f64>) -> f64 {
    let mut s = 0.0;
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
            let __dls_items = ::dls::__private::rows_of(&a);
            let (__dls_result_0,) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "runtime",
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
                                ::dls::__private::type_of(&s),
                            ))
                                .__dls_slot()
                        },
                    ),
                    0..::dls::__private::Lanes::count(&__dls_items),
                    || (::dls::__private::identity_like(&__dls_op_0, &s),),
                    |__dls_iterates, __dls_acc| {
                        #[allow(unused_mut)]
                        let mut s = ::core::mem::take(&mut __dls_acc.0);
                        let __dls_note_0 = ::dls::__private::default_start_note(
                            &__dls_op_0,
                            &s,
                            ::core::stringify!(s),
                        );
                        for __dls_index in __dls_iterates {
                            let row = ::dls::__private::Lanes::lane(
                                &__dls_items,
                                __dls_index,
                            );
                            let () = {
                                s += row.sum();
                            };
                        }
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
            s = ::dls::__private::Operator::combine(&__dls_op_0, s, __dls_result_0);
        };
    }
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
            let __dls_items = ::dls::__private::outer_of(&a);
            let (__dls_result_0,) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "runtime",
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
                                ::dls::__private::type_of(&s),
                            ))
                                .__dls_slot()
                        },
                    ),
                    0..::dls::__private::Lanes::count(&__dls_items),
                    || (::dls::__private::identity_like(&__dls_op_0, &s),),
                    |__dls_iterates, __dls_acc| {
                        #[allow(unused_mut)]
                        let mut s = ::core::mem::take(&mut __dls_acc.0);
                        let __dls_note_0 = ::dls::__private::default_start_note(
                            &__dls_op_0,
                            &s,
                            ::core::stringify!(s),
                        );
                        for __dls_index in __dls_iterates {
                            let (i, sub) = (
                                __dls_index,
                                ::dls::__private::Lanes::lane(&__dls_items, __dls_index),
                            );
                            let () = {
                                s += sub[0] * i as f64;
                            };
                        }
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
            s = ::dls::__private::Operator::combine(&__dls_op_0, s, __dls_result_0);
        };
    }
    s
}
fn stencil(a: &Array2<f64>) -> Array2<f64> {
    let mut b = a.clone();
    {
        let () = {
            let __dls_range = 1..a.nrows() - 1;
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
            ::dls::__private::interior(
                ::core::concat!(::core::file!(), ":", ::core::line!()),
                &[
                    (
                        ::core::stringify!(a),
                        {
                            #[allow(unused_imports)]
                            use ::dls::__private::FoundInterior as _;
                            #[allow(unused_imports)]
                            use ::dls::__private::NoInterior as _;
                            (&::dls::__private::Probe(&a)).interior()
                        },
                    ),
                ],
            );
            ::dls::__private::gathers(&b);
            let __dls_shape_0 = ::dls::__private::nd_shape(&b);
            let __dls_exchange_0 = {
                #[allow(unused_imports)]
                use ::dls::__private::GatherOfPlain as _;
                #[allow(unused_imports)]
                use ::dls::__private::GatherOfAny as _;
                (&&::dls::__private::gather_of(&b)).__dls_exchange()
            };
            let __dls_owner_0 = __dls_exchange_0.owner(__dls_assigned_exchanged);
            let __dls_when_0 = __dls_assigned_in_place || __dls_owner_0.is_some();
            let __dls_target_0 = {
                use ::dls::__private::ScatterTarget as _;
                b.scatter_elements()
            };
            let __dls_place_0 = ::dls::__private::nd_block_place(
                unsafe { ::dls::__private::Place::new(__dls_target_0, __dls_when_0) }
                    .exchanged(__dls_owner_0),
                __dls_shape_0,
                &__dls_range,
                ::core::stringify!(b),
                ::core::concat!(::core::file!(), ":", ::core::line!()),
            );
            let (__dls_result_0,) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "runtime",
                )
                .reads_in_place()
                .run_iterates(
                    (
                        {
                            #[allow(unused_imports)]
                            use ::dls::__private::GatherOfPlain as _;
                            #[allow(unused_imports)]
                            use ::dls::__private::GatherOfAny as _;
                            (&&::dls::__private::nd_gather_of_place(&__dls_place_0))
                                .__dls_gather_slot()
                        },
                    ),
                    __dls_range,
                    || (::dls::__private::GatherBuf::new(),),
                    |__dls_iterates, __dls_acc| {
                        ::dls::__private::with_captured_1(
                            {
                                #[allow(unused_imports)]
                                use ::dls::__private::CaptureOfRef as _;
                                #[allow(unused_imports)]
                                use ::dls::__private::CaptureOfAny as _;
                                (&&::dls::__private::Captured(&a)).__dls_capture()
                            },
                            |__dls_cap_0| {
                                let __dls_copy = __dls_iterates.is_copy();
                                for __dls_index in __dls_iterates {
                                    let i = __dls_index;
                                    #[allow(unused_mut)]
                                    let mut b = ::dls::__private::NdBlockAccess::new(
                                        &__dls_place_0,
                                        &mut __dls_acc.0,
                                        ::dls::__private::block_iterate(__dls_index),
                                        __dls_copy,
                                    );
                                    if ::dls::__private::NdBlockAccess::in_place(&b) {
                                        ::dls::__private::nd_with_row(
                                            ::dls::__private::NdBlockAccess::split(&mut b),
                                            |__dls_row_0, __dls_rest_0| {
                                                #[allow(unused_mut)]
                                                let mut b = ::dls::__private::NdBlockRow::new(
                                                    __dls_row_0,
                                                    __dls_rest_0,
                                                );
                                                let () = {
                                                    #[allow(clippy::needless_range_loop)]
                                                    let () = {
                                                        for j in 0..(*__dls_cap_0.get()).ncols() {
                                                            b.row2()[j] = (*__dls_cap_0.get())[[i - 1, j]]
                                                                + (*__dls_cap_0.get())[[i + 1, j]];
                                                        }
                                                    };
                                                };
                                            },
                                        );
                                    } else {
                                        let () = {
                                            #[allow(clippy::needless_range_loop)]
                                            let () = {
                                                for j in 0..(*__dls_cap_0.get()).ncols() {
                                                    ::dls::__private::NdBlockSet::set(
                                                        &mut b,
                                                        [i, j],
                                                        (*__dls_cap_0.get())[[i - 1, j]]
                                                            + (*__dls_cap_0.get())[[i + 1, j]],
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
                    b.scatter_elements()
                },
                __dls_exchange_0,
                ::core::stringify!(b),
                ::core::concat!(::core::file!(), ":", ::core::line!()),
            );
        };
    }
    b
}
