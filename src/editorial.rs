//! The editorial rule in one wing: what a page needs before it is published (`policy`),
//! how an author and a reviewer sign it (`sign`), who may sign (`signers_file`), and where each entry stands (`status`).
//! Only `policy` makes a `Publishable`; `sign` and `status` ask `policy`, never decide.
pub mod policy;
pub mod provenance;
pub mod sign;
pub mod signers_file;
pub mod status;
pub mod verify;
