//! The editorial rule in one wing: what a page needs before it is published (`policy`),
//! how an author and a reviewer sign it (`sign`), and where each entry stands (`status`).
//! Only `policy` makes a `Publishable`; `sign` and `status` ask `policy`, never decide.
pub mod policy;
pub mod sign;
pub mod status;
