//! Sizes, alignments and field offsets of LLVM types in bytes, for the 64-bit GPU targets we
//! compile to (NVPTX64 for CUDA, SPIR64 for OpenCL): natural alignment, 8-byte pointers,
//! C struct layout, vectors aligned to their (power-of-two rounded) size.

use llvm_ir::types::{FPType, NamedStructDef, Type, Types};
use llvm_ir::TypeRef;

/// What a type is made of, for loads and stores of aggregates: the byte offset, size and
/// type of every scalar leaf, in field order.
pub fn leaves(types: &Types, ty: &TypeRef) -> Option<Vec<(u64, TypeRef)>> {
    let mut out = Vec::new();
    collect(types, ty, 0, &mut out)?;
    Some(out)
}

fn collect(types: &Types, ty: &TypeRef, base: u64, out: &mut Vec<(u64, TypeRef)>) -> Option<()> {
    match ty.as_ref() {
        Type::StructType { element_types, is_packed } => {
            let offs = field_offsets(types, element_types, *is_packed)?;
            for (t, o) in element_types.iter().zip(offs) {
                collect(types, t, base + o, out)?;
            }
        }
        Type::NamedStructType { name } => {
            let def = resolve_named(types, name)?;
            collect(types, &def, base, out)?;
        }
        Type::ArrayType { element_type, num_elements } => {
            let s = alloc_size(types, element_type)?;
            for i in 0..*num_elements as u64 {
                collect(types, element_type, base + i * s, out)?;
            }
        }
        _ => out.push((base, ty.clone())),
    }
    Some(())
}

pub fn resolve_named(types: &Types, name: &str) -> Option<TypeRef> {
    match types.named_struct_def(name)? {
        NamedStructDef::Defined(t) => Some(t.clone()),
        NamedStructDef::Opaque => None,
    }
}

/// Store size in bytes (None for unsized or unknown types).
pub fn size(types: &Types, ty: &TypeRef) -> Option<u64> {
    Some(match ty.as_ref() {
        Type::IntegerType { bits } => (*bits as u64).div_ceil(8),
        Type::FPType(fp) => match fp {
            FPType::Half | FPType::BFloat => 2,
            FPType::Single => 4,
            FPType::Double => 8,
            _ => 16,
        },
        Type::PointerType { .. } => 8,
        Type::VectorType { element_type, num_elements, .. } => {
            let n = (*num_elements as u64).next_power_of_two();
            n * size(types, element_type)?
        }
        Type::ArrayType { element_type, num_elements } => *num_elements as u64 * alloc_size(types, element_type)?,
        Type::StructType { element_types, is_packed } => {
            let offs = field_offsets(types, element_types, *is_packed)?;
            let end = match (element_types.last(), offs.last()) {
                (Some(t), Some(o)) => o + alloc_size(types, t)?,
                _ => 0,
            };
            let a = if *is_packed { 1 } else { align(types, ty)? };
            round_up(end, a)
        }
        Type::NamedStructType { name } => size(types, &resolve_named(types, name)?)?,
        _ => return None,
    })
}

/// Allocation size: the size rounded up to the alignment (the stride of an array).
pub fn alloc_size(types: &Types, ty: &TypeRef) -> Option<u64> {
    Some(round_up(size(types, ty)?, align(types, ty)?))
}

pub fn align(types: &Types, ty: &TypeRef) -> Option<u64> {
    Some(match ty.as_ref() {
        Type::IntegerType { .. } | Type::FPType(_) => size(types, ty)?.next_power_of_two().max(1),
        Type::PointerType { .. } => 8,
        Type::VectorType { .. } => size(types, ty)?.next_power_of_two().max(1),
        Type::ArrayType { element_type, .. } => align(types, element_type)?,
        Type::StructType { element_types, is_packed } => {
            if *is_packed {
                1
            } else {
                let mut a = 1;
                for t in element_types {
                    a = a.max(align(types, t)?);
                }
                a
            }
        }
        Type::NamedStructType { name } => align(types, &resolve_named(types, name)?)?,
        _ => return None,
    })
}

/// Byte offsets of the fields of a struct.
pub fn field_offsets(types: &Types, fields: &[TypeRef], packed: bool) -> Option<Vec<u64>> {
    let mut offs = Vec::with_capacity(fields.len());
    let mut at = 0u64;
    for f in fields {
        let a = if packed { 1 } else { align(types, f)? };
        at = round_up(at, a);
        offs.push(at);
        at += alloc_size(types, f)?;
    }
    Some(offs)
}

fn round_up(x: u64, a: u64) -> u64 {
    if a <= 1 {
        x
    } else {
        x.div_ceil(a) * a
    }
}

/// The width in bits of a first-class scalar type (integers, floats, pointers count 64).
/// A target extension type is an opaque 32-bit value: the preludes leave only OpenCL's
/// `sampler_t` as one (its CLK_* flags; syncfix's image model does not read them).
pub fn scalar_bits(ty: &TypeRef) -> Option<u16> {
    match ty.as_ref() {
        Type::TargetExtType => Some(32),
        Type::IntegerType { bits } if *bits <= 128 => Some(*bits as u16),
        Type::FPType(FPType::Half | FPType::BFloat) => Some(16),
        Type::FPType(FPType::Single) => Some(32),
        Type::FPType(FPType::Double) => Some(64),
        _ => None,
    }
}

/// The extents of nested array types in elements, outermost first, and the innermost
/// element's size in bytes (`[16 x [32 x float]]` gives `([16, 32], 4)`).
pub fn array_dims(types: &Types, ty: &TypeRef) -> (Vec<u64>, u64) {
    let mut dims = vec![];
    let mut t = ty.clone();
    while let Type::ArrayType { element_type, num_elements } = t.as_ref() {
        dims.push(*num_elements as u64);
        t = element_type.clone();
    }
    (dims, alloc_size(types, &t).unwrap_or(1))
}
