fn both(n: usize) -> (u64, Vec<u64>) {
    let mut total = 0_u64;
    let mut out = vec![0_u64; n];
    {
        let () = {
            let __dls_range = 0..n;
            #[allow(unused_variables)]
            let __dls_in_place = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "fac2",
                )
                .writes_in_place();
            let __dls_assigned_in_place = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "fac2",
                )
                .writes_assigned_in_place();
            #[allow(unused_variables)]
            let __dls_assigned_exchanged = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "fac2",
                )
                .exchanges_assigned_in_place();
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
            ::dls::__private::gathers(&out);
            let __dls_exchange_1 = {
                #[allow(unused_imports)]
                use ::dls::__private::GatherOfPlain as _;
                #[allow(unused_imports)]
                use ::dls::__private::GatherOfAny as _;
                (&&::dls::__private::gather_of(&out)).__dls_exchange()
            };
            let __dls_owner_1 = __dls_exchange_1.owner(__dls_assigned_exchanged);
            let __dls_when_1 = __dls_assigned_in_place || __dls_owner_1.is_some();
            let __dls_target_1 = {
                use ::dls::__private::ScatterTarget as _;
                out.scatter_elements()
            };
            let __dls_place_1 = unsafe {
                ::dls::__private::Place::new(__dls_target_1, __dls_when_1)
            }
                .exchanged(__dls_owner_1);
            let (__dls_result_0, __dls_result_1) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "fac2",
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
                                ::dls::__private::type_of(&total),
                            ))
                                .__dls_slot()
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
                        ::dls::__private::identity_like(&__dls_op_0, &total),
                        ::dls::__private::GatherBuf::new(),
                    ),
                    |__dls_iterates, __dls_acc| {
                        let __dls_copy = __dls_iterates.is_copy();
                        #[allow(unused_mut)]
                        let mut total = ::core::mem::take(&mut __dls_acc.0);
                        let __dls_note_0 = ::dls::__private::default_start_note(
                            &__dls_op_0,
                            &total,
                            ::core::stringify!(total),
                        );
                        #[allow(unused_mut)]
                        let mut out = ::dls::__private::GatherWriter::of_run(
                            &__dls_place_1,
                            &mut __dls_acc.1,
                            __dls_copy,
                        );
                        for __dls_index in __dls_iterates {
                            let i = __dls_index;
                            let () = {
                                ::dls::__private::GatherWriter::set(&mut out, i, i as u64);
                                total += i as u64;
                            };
                        }
                        __dls_acc.0 = total;
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::Operator::combine(
                            &__dls_op_0,
                            __dls_a.0,
                            __dls_b.0,
                        ),
                        ::dls::__private::GatherBuf::merge(__dls_a.1, __dls_b.1),
                    ),
                );
            total = ::dls::__private::Operator::combine(
                &__dls_op_0,
                total,
                __dls_result_0,
            );
            ::dls::__private::scatter_exchanged(
                __dls_result_1,
                {
                    use ::dls::__private::ScatterTarget as _;
                    out.scatter_elements()
                },
                __dls_exchange_1,
                ::core::stringify!(out),
                ::core::concat!(::core::file!(), ":", ::core::line!()),
            );
        };
    }
    (total, out)
}
