fn touch(n: u32) {
    {
        let () = {
            let () = ::dls::__private::Loop::new("rows", "gss,min=2")
                .run_iterates(
                    (),
                    1..=n,
                    || (),
                    |__dls_iterates, __dls_acc| {
                        for __dls_index in __dls_iterates {
                            let i = __dls_index;
                            let () = {
                                work(i);
                            };
                        }
                    },
                    |__dls_a, __dls_b| (),
                );
        };
    }
}
