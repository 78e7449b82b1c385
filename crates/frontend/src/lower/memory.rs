//! Memory objects: the kernel's parameters as scalars or objects (a by-value struct as a
//! uniform private copy), global and shared variables with their known initial contents,
//! private objects, their element sizes and dimensions for messages, and loads and stores of
//! a type at an object and offset, leaf by leaf (ARCHITECTURE.md, "crates/kir": pointers are
//! not values).

use super::*;
use syncfix_kir::Pointer;

/// The non-zero scalars of a constant initializer, or `None` when it is not made of plain
/// numbers.
pub(super) fn init_cells(types: &llvm_ir::types::Types, ty: &TypeRef, c: &llvm_ir::ConstantRef) -> Option<syncfix_kir::Init> {
    fn walk(
        types: &llvm_ir::types::Types,
        ty: &TypeRef,
        c: &llvm_ir::ConstantRef,
        base: u64,
        out: &mut Vec<(u64, u32, u128)>,
    ) -> Option<()> {
        use llvm_ir::constant::{Constant as C, Float as F};
        match c.as_ref() {
            C::AggregateZero(_) | C::Null(_) => Some(()),
            C::Int { value, .. } => {
                let w = layout::size(types, ty)? as u32;
                if *value != 0 {
                    out.push((base, w, *value as u128));
                }
                Some(())
            }
            C::Float(F::Single(x)) => {
                if x.to_bits() != 0 {
                    out.push((base, 4, x.to_bits() as u128));
                }
                Some(())
            }
            C::Float(F::Double(x)) => {
                if x.to_bits() != 0 {
                    out.push((base, 8, x.to_bits() as u128));
                }
                Some(())
            }
            C::Array { elements, .. } => {
                let Type::ArrayType { element_type, .. } = ty.as_ref() else { return None };
                let stride = layout::alloc_size(types, element_type)?;
                for (i, e) in elements.iter().enumerate() {
                    walk(types, element_type, e, base + i as u64 * stride, out)?;
                }
                Some(())
            }
            C::Struct { values, .. } => {
                let (fields, packed) = match ty.as_ref() {
                    Type::StructType { element_types, is_packed } => (element_types.clone(), *is_packed),
                    Type::NamedStructType { name } => match layout::resolve_named(types, name).as_deref() {
                        Some(Type::StructType { element_types, is_packed }) => (element_types.clone(), *is_packed),
                        _ => return None,
                    },
                    _ => return None,
                };
                let offs = layout::field_offsets(types, &fields, packed)?;
                for ((f, o), v) in fields.iter().zip(offs).zip(values) {
                    walk(types, f, v, base + o, out)?;
                }
                Some(())
            }
            _ => None,
        }
    }
    let mut cells = vec![];
    walk(types, ty, c, 0, &mut cells)?;
    Some(syncfix_kir::Init { cells })
}

/// A readable name for an IR global without an AST entry: `_ZZ1kPfE1b` (a function-local
/// static) -> `b`, `k.l` -> `l`.
pub(super) fn source_name_of_global(ir: &str) -> String {
    crate::names::local_static(ir).unwrap_or_else(|| ir.rsplit('.').next().unwrap_or(ir).to_string())
}

/// Size in bytes of the pointee of a pointer type as clang spells it (`float *`,
/// `__global int *restrict`), for printing element indices; 0 when unknown.
/// The texel size in bytes and the dimensions of an OpenCL image parameter of the prelude's
/// model (syncfix_opencl_prelude.h): `image2d_t` is rows of 2^20 texels of 16 bytes, printed
/// `img[y][x]`; `image3d_t` slices of 2^16 x 2^16 texels. The outermost extent is unknown (0,
/// which also exempts images from `--check-array-bounds`). `None` for other types.
pub(super) fn image_layout(qual: &str) -> Option<(u32, Vec<u64>)> {
    // The desugared type: `__global struct __syncfix_image2d *`.
    let base = qual.split('*').next().unwrap_or("");
    Some(match base.split_whitespace().last()? {
        "__syncfix_image1d" => (16, vec![]),
        "__syncfix_image2d" => (16, vec![0, 1 << 20]),
        "__syncfix_image3d" => (16, vec![0, 1 << 16, 1 << 16]),
        _ => return None,
    })
}

pub(crate) fn elem_size_of_pointer_type(qual: &str) -> u32 {
    let base = qual.split('*').next().unwrap_or("");
    let words: Vec<&str> = base
        .split_whitespace()
        .filter(|w| {
            !matches!(
                *w,
                "const"
                    | "volatile"
                    | "__global"
                    | "__local"
                    | "__constant"
                    | "global"
                    | "local"
                    | "constant"
                    | "restrict"
                    | "__restrict"
                    | "__restrict__"
                    | "struct"
            )
        })
        .collect();
    let t = words.join(" ");
    let scalar = |s: &str| -> Option<u32> {
        Some(match s {
            "char" | "signed char" | "unsigned char" | "uchar" | "bool" | "int8_t" | "uint8_t" => 1,
            "short" | "unsigned short" | "ushort" | "half" | "short int" | "int16_t" | "uint16_t" => 2,
            "int" | "unsigned" | "unsigned int" | "uint" | "float" | "int32_t" | "uint32_t" => 4,
            "long"
            | "unsigned long"
            | "ulong"
            | "long long"
            | "unsigned long long"
            | "double"
            | "size_t"
            | "long int"
            | "int64_t"
            | "uint64_t"
            | "long long int"
            | "unsigned long long int" => 8,
            _ => return None,
        })
    };
    if let Some(s) = scalar(&t) {
        return s;
    }
    // OpenCL/CUDA vector types: float4, int2, uchar16 ...
    let digits: String = t.chars().rev().take_while(|c| c.is_ascii_digit()).collect::<Vec<_>>().into_iter().rev().collect();
    if !digits.is_empty() {
        if let (Some(s), Ok(n)) = (scalar(&t[..t.len() - digits.len()]), digits.parse::<u32>()) {
            return s * n.next_power_of_two();
        }
    }
    0
}

impl<'a> Lowerer<'a> {
    /// Creates the parameters: pointer parameters become memory objects, scalars `Param`s.
    pub(super) fn kernel_params(&mut self, func: &'a Function, entry: BlockId) -> Result<Vec<LVal>, LowerError> {
        let mut args = vec![];
        let floc = func.debugloc.as_ref().and_then(|d| self.loc(d));
        // `--kernel-args` gives values to the parameters that are not pointers to arrays
        // (scalars, vectors, structs passed by value), in order.
        let mut nth_value = 0usize;
        for (i, p) in func.parameters.iter().enumerate() {
            let (name, qual) = self.input.names.params.get(i).cloned().unwrap_or_else(|| (format!("arg{i}"), String::new()));
            match p.ty.as_ref() {
                Type::PointerType { addr_space, .. } => {
                    let byval = p.attributes.iter().find_map(|a| match a {
                        llvm_ir::function::ParameterAttribute::ByVal(t) => Some(t.clone()),
                        _ => None,
                    });
                    if let Some(t) = byval {
                        // A struct passed by value: each thread's private copy starts with the
                        // same (arbitrary) contents.
                        let (dims, elem) = layout::array_dims(&self.m.types, &t);
                        let o = self.kir.k.objects.push(MemObject {
                            name: name.clone(),
                            space: Space::Private,
                            elem_size: elem as u32,
                            dims,
                            param: Some(i),
                            init: None,
                            uniform: true,
                        });
                        self.kir.k.params.push(Param { name: name.clone(), kind: ParamKind::Pointer(o) });
                        if let Some(Some(bits)) = self.input.param_values.get(nth_value) {
                            // The struct's bytes, little-endian, as GPUVerify takes them.
                            let size = layout::size(&self.m.types, &t).unwrap_or(0).min(16);
                            for at in 0..size {
                                let byte = (bits >> (8 * at)) & 0xff;
                                let ptr = syncfix_kir::Pointer { object: o, offset: Operand::konst(64, at as u128) };
                                self.kir.k.push_inst(
                                    entry,
                                    InstKind::Store { ptr, value: Operand::konst(8, byte), width: 1 },
                                    0,
                                    Span::default(),
                                );
                            }
                        }
                        nth_value += 1;
                        self.byval_pointees(pointer::ByValCopy { entry, obj: o, loc: floc }, &t, &name, 0, &qual)?;
                        args.push(LVal::Ptr(o, Operand::konst(64, 0)));
                        continue;
                    }
                    if qual.contains("(*)(") {
                        // A function pointer: any function or null, as a 64-bit value (see
                        // `pointer.rs`). (A pointer to arrays, `float (*)[16]` as a parameter
                        // `float x[][16]` decays to, is an array parameter like any other.)
                        let idx = self.kir.k.params.len();
                        nth_value += 1;
                        self.kir.k.params.push(Param { name, kind: ParamKind::Scalar { width: 64 } });
                        let x = self.kir.k.push_inst(entry, InstKind::Param { index: idx }, 64, Span::default());
                        args.push(self.decode_ptr(entry, Operand::Value(x), &Span::default()));
                        continue;
                    }
                    let space = self.space_of(*addr_space);
                    let mut elem_size = elem_size_of_pointer_type(&qual);
                    let nth = self.kir.k.params.iter().filter(|p| matches!(p.kind, ParamKind::Pointer(_))).count();
                    let mut dims = match self.input.array_sizes.get(nth).copied().flatten() {
                        Some(bytes) if elem_size > 0 => vec![bytes / elem_size as u64],
                        _ => vec![],
                    };
                    if let Some((elem, image_dims)) = image_layout(&qual) {
                        // An OpenCL image (the prelude's model): texels, printed by coordinates.
                        (elem_size, dims) = (elem, image_dims);
                    }
                    let o = self.kir.k.objects.push(MemObject {
                        name: name.clone(),
                        space,
                        elem_size,
                        dims,
                        param: Some(i),
                        init: None,
                        uniform: false,
                    });
                    self.kir.k.params.push(Param { name, kind: ParamKind::Pointer(o) });
                    args.push(LVal::Ptr(o, Operand::konst(64, 0)));
                }
                Type::VectorType { element_type, num_elements, .. } => {
                    // A vector parameter: one uniform scalar parameter per element.
                    let Some(width) = layout::scalar_bits(element_type) else {
                        return Err(unsupported(format!("kernel parameter `{name}` of type {}", p.ty), floc));
                    };
                    let mut elems = vec![];
                    nth_value += 1;
                    for e in 0..*num_elements {
                        let idx = self.kir.k.params.len();
                        self.kir.k.params.push(Param { name: format!("{name}.s{e}"), kind: ParamKind::Scalar { width } });
                        let v = self.kir.k.push_inst(entry, InstKind::Param { index: idx }, width, Span::default());
                        elems.push(LVal::Scalar(Operand::Value(v)));
                    }
                    args.push(LVal::Agg(elems));
                }
                _ => {
                    let Some(width) = layout::scalar_bits(&p.ty) else {
                        return Err(unsupported(format!("kernel parameter `{name}` of type {}", p.ty), floc));
                    };
                    let idx = self.kir.k.params.len();
                    let nth = nth_value;
                    nth_value += 1;
                    // A function checked on its own has no kernel arguments: its scalar
                    // parameters are arbitrary values of each thread.
                    if !self.input.modular {
                        self.kir.k.params.push(Param { name, kind: ParamKind::Scalar { width } });
                    }
                    let kind = if self.input.modular { InstKind::Havoc } else { InstKind::Param { index: idx } };
                    let v = self.kir.k.push_inst(entry, kind, width, Span::default());
                    // `--kernel-args`: the parameter's value is given.
                    if let Some(Some(bits)) = self.input.param_values.get(nth) {
                        let c = self.kir.k.push_inst(
                            entry,
                            InstKind::Cmp { pred: syncfix_kir::CmpPred::Eq, lhs: Operand::Value(v), rhs: Operand::konst(width, *bits) },
                            1,
                            Span::default(),
                        );
                        self.kir.k.push_inst(entry, InstKind::Assume { cond: Operand::Value(c) }, 0, Span::default());
                    }
                    args.push(LVal::Scalar(Operand::Value(v)));
                }
            }
        }
        Ok(args)
    }

    pub(crate) fn space_of(&self, addr_space: u32) -> Space {
        match (self.input.language, addr_space) {
            (_, 3) => Space::Shared,
            (Language::Cuda, 4) => Space::Constant,
            (Language::OpenCl, 2) => Space::Constant,
            (Language::OpenCl, 0) => Space::Private,
            (Language::Cuda, 5) => Space::Private,
            _ => Space::Global,
        }
    }

    /// The memory object of a global variable (created on first use).
    /// `value_ty` is the global's value type (from the reference; `GlobalVariable::ty` is the
    /// pointer type under opaque pointers).
    pub(crate) fn global_object(&mut self, name: &str, value_ty: &TypeRef, loc: Option<Loc>) -> Result<ObjectId, LowerError> {
        if let Some(o) = self.globals.get(name) {
            return Ok(*o);
        }
        let g = self
            .m
            .global_vars
            .iter()
            .find(|g| name_str(&g.name) == name)
            .ok_or_else(|| unsupported(format!("reference to `{name}`, which is not a variable"), loc))?;
        let space = self.space_of(g.addr_space);
        let (dims, elem) = layout::array_dims(&self.m.types, value_ty);
        let src = self.input.names.globals.get(name).cloned().unwrap_or_else(|| source_name_of_global(name));
        // The contents of OpenCL's program-scope constants are known from their initializer.
        // Nothing else is: CUDA's host may overwrite `__constant__` memory
        // (cudaMemcpyToSymbol), and other memory may have been changed by the host or an
        // earlier launch (suite: CUDA/globalarray/fail vs OpenCL/globalarray/pass2).
        let init = match (self.input.language, space, &g.initializer) {
            (Language::OpenCl, Space::Constant, Some(c)) => init_cells(&self.m.types, value_ty, c),
            _ => None,
        };
        let o = self.kir.k.objects.push(MemObject { name: src, space, elem_size: elem as u32, dims, param: None, init, uniform: false });
        self.globals.insert(name.to_string(), o);
        Ok(o)
    }

    pub(crate) fn new_private(&mut self, ty: &TypeRef) -> ObjectId {
        self.private_count += 1;
        let (dims, elem) = layout::array_dims(&self.m.types, ty);
        self.kir.k.objects.push(MemObject {
            name: format!("private{}", self.private_count),
            space: Space::Private,
            elem_size: elem as u32,
            dims,
            param: None,
            init: None,
            uniform: false,
        })
    }

    /// Loads a value of type `ty` (scalars, or aggregates leaf by leaf).
    pub(crate) fn load(&mut self, obj: syncfix_kir::ObjectId, off: Operand, ty: &TypeRef, at: At<'_>) -> Result<LVal, LowerError> {
        let At { cur, span, loc } = at;
        match ty.as_ref() {
            Type::PointerType { .. } => {
                // A pointer in memory is its 64-bit representation (see `pointer.rs`).
                self.pointer_size(ty, loc)?;
                let ptr = Pointer { object: obj, offset: off };
                let kind = if self.spec_depth > 0 { InstKind::SpecLoad { ptr, width: 8 } } else { InstKind::Load { ptr, width: 8 } };
                let v = self.kir.push(cur, kind, 64, span);
                Ok(self.decode_ptr(cur, Operand::Value(v), span))
            }
            Type::StructType { .. } | Type::NamedStructType { .. } | Type::ArrayType { .. } | Type::VectorType { .. } => {
                let (fields, offs) = self.members(ty, loc)?;
                let mut v = vec![];
                for (f, o) in fields.iter().zip(offs) {
                    let fo = self.kir.add_offset(cur, off, Operand::konst(64, o as u128), span);
                    v.push(self.load(obj, fo, f, At::new(cur, span, loc))?);
                }
                Ok(LVal::Agg(v))
            }
            _ => {
                let w = layout::scalar_bits(ty).ok_or_else(|| unsupported(format!("a load of type {ty}"), loc))?;
                let bytes = layout::size(&self.m.types, ty)
                    .ok_or_else(|| unsupported(format!("a load of type {ty}, whose size is not known"), loc))?
                    as u32;
                let ptr = Pointer { object: obj, offset: off };
                let kind =
                    if self.spec_depth > 0 { InstKind::SpecLoad { ptr, width: bytes } } else { InstKind::Load { ptr, width: bytes } };
                let v = self.kir.push(cur, kind, w, span);
                Ok(LVal::Scalar(Operand::Value(v)))
            }
        }
    }

    pub(super) fn store(
        &mut self,
        obj: syncfix_kir::ObjectId,
        off: Operand,
        ty: &TypeRef,
        val: LVal,
        at: At<'_>,
    ) -> Result<(), LowerError> {
        let At { cur, span, loc } = at;
        match (ty.as_ref(), val) {
            (Type::PointerType { .. }, v) => {
                self.pointer_size(ty, loc)?;
                let enc = self.encode_ptr(&v, At::new(cur, span, loc))?;
                self.escape(&v);
                self.kir.push(cur, InstKind::Store { ptr: Pointer { object: obj, offset: off }, value: enc, width: 8 }, 0, span);
                Ok(())
            }
            (_, LVal::Agg(vals)) => {
                let (fields, offs) = self.members(ty, loc)?;
                for ((f, o), v) in fields.iter().zip(offs).zip(vals) {
                    let fo = self.kir.add_offset(cur, off, Operand::konst(64, o as u128), span);
                    self.store(obj, fo, f, v, at)?;
                }
                Ok(())
            }
            (_, LVal::Scalar(v)) => {
                let bytes = layout::size(&self.m.types, ty)
                    .ok_or_else(|| unsupported(format!("a store of type {ty}, whose size is not known"), loc))?
                    as u32;
                self.kir.push(cur, InstKind::Store { ptr: Pointer { object: obj, offset: off }, value: v, width: bytes }, 0, span);
                Ok(())
            }
            _ => Err(unsupported("a pointer stored in memory", loc)),
        }
    }

    /// Member types and byte offsets of a struct or array type.
    pub(crate) fn members(&self, ty: &TypeRef, loc: Option<Loc>) -> Result<(Vec<TypeRef>, Vec<u64>), LowerError> {
        let types = &self.m.types;
        match ty.as_ref() {
            Type::StructType { element_types, is_packed } => {
                let offs = layout::field_offsets(types, element_types, *is_packed)
                    .ok_or_else(|| unsupported("a struct of unknown layout", loc))?;
                Ok((element_types.clone(), offs))
            }
            Type::NamedStructType { name } => {
                let def = layout::resolve_named(types, name).ok_or_else(|| unsupported(format!("opaque struct {name}"), loc))?;
                self.members(&def, loc)
            }
            Type::ArrayType { element_type, num_elements } => {
                let s = layout::alloc_size(types, element_type).ok_or_else(|| unsupported("an array of unknown layout", loc))?;
                Ok(((0..*num_elements).map(|_| element_type.clone()).collect(), (0..*num_elements as u64).map(|i| i * s).collect()))
            }
            // Vector elements are packed.
            Type::VectorType { element_type, num_elements, .. } => {
                let s = layout::size(types, element_type).ok_or_else(|| unsupported("a vector of unknown layout", loc))?;
                Ok(((0..*num_elements).map(|_| element_type.clone()).collect(), (0..*num_elements as u64).map(|i| i * s).collect()))
            }
            _ => Err(unsupported(format!("an aggregate of type {ty}"), loc)),
        }
    }

    /// Checks that pointers of type `ty` take 8 bytes in memory (our representation).
    pub(crate) fn pointer_size(&self, ty: &TypeRef, loc: Option<Loc>) -> Result<(), LowerError> {
        match layout::size(&self.m.types, ty) {
            Some(8) => Ok(()),
            other => Err(unsupported(format!("a pointer of {} bytes in memory", other.unwrap_or(0)), loc)),
        }
    }
}
