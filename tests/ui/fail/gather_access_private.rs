// Issue 43, item 1 (audit): `GatherAccess` was an enum whose `InPlace { ptr, len, place }`
// variant had public fields, so safe code could make an access from any pointer and index it
// (or change the pointer of a real one). Its state is private now: only `GatherAccess::new`
// makes one, from a `Place` that writes in place only under `Place::new`'s `unsafe` contract.
use dls_runtime::gather::GatherAccess;

fn main() {
    let access: GatherAccess<'static, u64> = GatherAccess::InPlace {
        ptr: 8 as *mut u64,
        len: 1,
        place: std::marker::PhantomData,
    };
    println!("{}", access[0]);
}
