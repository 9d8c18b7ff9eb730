//! The editorial rule in one wing: what a page needs before it is published (`policy`),
//! how an author and a reviewer sign it (`sign`), who may sign (`signers_file`), and where each entry stands (`status`).
//! Only `policy` makes a `Publishable`; `sign` and `status` ask `policy`, never decide.
pub mod policy;
pub(crate) mod provenance;
pub(crate) mod sign;
pub(crate) mod signers_file;
pub(crate) mod status;
pub(crate) mod verify;
