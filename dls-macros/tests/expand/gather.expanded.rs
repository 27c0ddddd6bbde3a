fn squares(out: &mut [f64], n: usize) -> Vec<f64> {
    let mut v = vec![0.0; n];
    {
        let () = {
            ::dls::__private::gathers(&v);
            let __dls_view_0 = ::dls::__private::view(&v);
            ::dls::__private::gathers(&out);
            let __dls_view_1 = ::dls::__private::view(&out);
            let (__dls_result_0, __dls_result_1) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "gss",
                )
                .run(
                    (
                        ::dls::__private::gather_partial(&v),
                        ::dls::__private::gather_partial(&out),
                    ),
                    0..n,
                    || (
                        ::dls::__private::GatherBuf::new(),
                        ::dls::__private::GatherBuf::new(),
                    ),
                    |__dls_index, __dls_acc| {
                        let i = __dls_index;
                        #[allow(unused_mut)]
                        let mut v = ::dls::__private::GatherSlot::new(
                            __dls_view_0,
                            &mut __dls_acc.0,
                        );
                        #[allow(unused_mut)]
                        let mut out = ::dls::__private::GatherSlot::new(
                            __dls_view_1,
                            &mut __dls_acc.1,
                        );
                        let () = {
                            v[i] = (i * i) as f64;
                            out[i] += 1.0;
                        };
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::GatherBuf::merge(__dls_a.0, __dls_b.0),
                        ::dls::__private::GatherBuf::merge(__dls_a.1, __dls_b.1),
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
