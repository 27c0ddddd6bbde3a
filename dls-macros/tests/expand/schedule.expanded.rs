fn touch(n: u32) {
    {
        let () = {
            let () = ::dls::__private::run_loop(
                "rows",
                "gss,min=2",
                ::core::option::Option::None,
                (),
                1..=n,
                || (),
                |__dls_index, __dls_acc| {
                    let i = __dls_index;
                    let () = {
                        work(i);
                    };
                },
                |__dls_a, __dls_b| (),
            );
        };
    }
}
