fn histogram(v: &[usize], bins: usize) -> Vec<f64> {
    let mut hist = vec![0.0; bins];
    {
        let () = {
            let __dls_ty_0 = ::dls::__private::type_of(&hist);
            ::dls::__private::starts_each_worker(__dls_ty_0);
            ::dls::__private::travels(&hist);
            let __dls_op_0 = ::dls::__private::MergeFrom(
                support::add_vecs,
                vec![0.0; bins],
            );
            let (__dls_result_0,) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "fac2",
                )
                .ordered()
                .run_iterates(
                    (::dls::__private::option_partial(__dls_ty_0),),
                    0..v.len(),
                    || (
                        ::core::option::Option::Some(
                            ::dls::__private::identity(&__dls_op_0, __dls_ty_0),
                        ),
                    ),
                    |__dls_iterates, __dls_acc| {
                        ::dls::__private::with_captured_2(
                            {
                                #[allow(unused_imports)]
                                use ::dls::__private::CaptureOfRef as _;
                                #[allow(unused_imports)]
                                use ::dls::__private::CaptureOfAny as _;
                                (&&::dls::__private::Captured(&v)).__dls_capture()
                            },
                            {
                                #[allow(unused_imports)]
                                use ::dls::__private::CaptureOfRef as _;
                                #[allow(unused_imports)]
                                use ::dls::__private::CaptureOfAny as _;
                                (&&::dls::__private::Captured(&bins)).__dls_capture()
                            },
                            |__dls_cap_0, __dls_cap_1| {
                                #[allow(unused_mut)]
                                let mut hist = ::dls::__private::take_partial(
                                    &mut __dls_acc.0,
                                );
                                for __dls_index in __dls_iterates {
                                    let i = __dls_index;
                                    let () = {
                                        #[allow(clippy::needless_range_loop)]
                                        let () = {
                                            hist[(*__dls_cap_0.get())[i] % (*__dls_cap_1.get())] += 1.0;
                                        };
                                    };
                                }
                                __dls_acc.0 = ::core::option::Option::Some(hist);
                            },
                        )
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::combine_partials(
                            &__dls_op_0,
                            __dls_a.0,
                            __dls_b.0,
                        ),
                    ),
                );
            hist = ::dls::__private::combine_total(&__dls_op_0, hist, __dls_result_0);
        };
    }
    hist
}
