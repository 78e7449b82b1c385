//! Memory objects: the kernel's parameters as scalars or objects (a by-value struct as a
//! uniform private copy), global and shared variables with their known initial contents,
//! private objects, their element sizes and dimensions for messages, and loads and stores of
//! a type at an object and offset, leaf by leaf (ARCHITECTURE.md, "crates/kir": pointers are
//! not values).

use super::*;
use syncfix_kir::{BinOp, CastOp, Pointer};

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

/// The longest copy call, in bytes, that is offered in steps (a barrier site between each two
/// of its chunks): a longer copy gets no sites inside it.
const MAX_COPY_STEPS: u64 = 32;

/// LLVM's memory intrinsics (`llvm.memcpy`, `llvm.memmove`, `llvm.memset`) of a constant length.
impl<'a> Lowerer<'a> {
    /// The chunk size in bytes for copying `len` bytes of an object with elements of `elem`
    /// bytes: the element size when it divides the length, else the largest power of two
    /// (at most 8) that does.
    pub(super) fn chunk(len: u64, elem: u32) -> u32 {
        if elem > 0 && elem <= 16 && len.is_multiple_of(elem as u64) {
            return elem;
        }
        [8u32, 4, 2, 1].into_iter().find(|w| len.is_multiple_of(*w as u64)).unwrap_or(1)
    }

    /// `llvm.memcpy` / `llvm.memmove` of a constant length: element-sized loads and stores
    /// (real accesses, checked for races), through pointers that may be dynamic or null.
    /// Returns the block where lowering continues.
    pub(super) fn memcpy(&mut self, args: &[LVal], at: At<'_>) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let (Some(dst), Some(src), Some(LVal::Scalar(len))) = (args.first(), args.get(1), args.get(2)) else {
            return Err(unsupported("a memcpy of unexpected arguments", loc));
        };
        let Some(len) = self.constant_value(*len, 8) else { return Err(unsupported("a memcpy of a run-time length", loc)) };
        if len > 65536 {
            return Err(unsupported(format!("a memcpy of {len} bytes"), loc));
        }
        let dst = dst.clone();
        let steps_of = self.copy_statement(span);
        let (next, _) = self.through(cur, src.clone(), None, span, loc, &mut |me, b, src, soff| {
            me.through(b, dst.clone(), None, span, loc, &mut |me, b, dst, doff| {
                // A copy that may be done in steps has a step boundary between each two
                // chunks, so that a barrier can stand where the copies of two threads stop
                // overlapping: chunks of the objects' element size (the threads' copies lie
                // whole elements apart), byte by byte when the size is not known.
                let stepped = steps_of.filter(|_| len as u64 <= MAX_COPY_STEPS);
                let (de, se) = (me.kir.k.objects[dst].elem_size, me.kir.k.objects[src].elem_size);
                let w = match (stepped, [de, se].into_iter().filter(|e| *e > 0).min()) {
                    (Some(_), Some(elem)) => Self::chunk(len as u64, elem),
                    (Some(_), None) => 1,
                    (None, _) => Self::chunk(len as u64, de.min(se.max(1))),
                };
                for i in 0..(len as u64 / w as u64) {
                    if let (Some(stmt), true) = (stepped, i > 0) {
                        let step = (i * w as u64) as u32;
                        me.kir.push(b, InstKind::Anchor(syncfix_kir::Anchor { stmt, split: false, end: false, step }), 0, span);
                    }
                    let at = Operand::konst(64, i as u128 * w as u128);
                    let s_off = me.kir.add_offset(b, soff, at, span);
                    let d_off = me.kir.add_offset(b, doff, at, span);
                    let v = me.kir.push(
                        b,
                        InstKind::Load { ptr: syncfix_kir::Pointer { object: src, offset: s_off }, width: w },
                        (w * 8) as u16,
                        span,
                    );
                    me.kir.push(
                        b,
                        InstKind::Store { ptr: syncfix_kir::Pointer { object: dst, offset: d_off }, value: Operand::Value(v), width: w },
                        0,
                        span,
                    );
                }
                Ok((b, None))
            })
        })?;
        Ok(next)
    }

    /// The value of `op` when it is a constant, or integer arithmetic and casts over constants
    /// at most `depth` operations deep (at `-O0`, `n - 4` with `n` a constant local is an
    /// instruction). `None` otherwise, and where LLVM gives no value (a division by zero).
    fn constant_value(&self, op: Operand, depth: u32) -> Option<u128> {
        if let Some(c) = op.as_const() {
            return Some(c);
        }
        let Operand::Value(v) = op else { return None };
        if depth == 0 {
            return None;
        }
        let k = &self.kir.k;
        match &k.insts[v].kind {
            InstKind::Bin { op: bop, lhs, rhs } => {
                let (a, b) = (self.constant_value(*lhs, depth - 1)?, self.constant_value(*rhs, depth - 1)?);
                super::fold::bin(*bop, k.width(*lhs), a, b).ok()
            }
            InstKind::Cast { op: cop, arg } => {
                let a = self.constant_value(*arg, depth - 1)?;
                Some(super::fold::cast(*cop, k.width(*arg), k.insts[v].width, a))
            }
            _ => None,
        }
    }

    /// The statement of a copy at `span` when the copy can be done in steps: a CUDA kernel's
    /// bare copy call statement ([`syncfix_kir::CopyCall`]; OpenCL C has no such call, and its
    /// pointers would need their address spaces spelled).
    fn copy_statement(&self, span: &Span) -> Option<syncfix_kir::StmtId> {
        let k = &self.kir.k;
        if k.language != syncfix_kir::Language::Cuda {
            return None;
        }
        let s = k.statement_at(span.in_main()?)?;
        k.stmts.stmts[s].copy.is_some().then_some(s)
    }

    /// `llvm.memset` of a constant length. Returns the block where lowering continues.
    pub(super) fn memset(&mut self, args: &[LVal], at: At<'_>) -> Result<BlockId, LowerError> {
        let At { cur, span, loc } = at;
        let (Some(dst), Some(LVal::Scalar(byte)), Some(LVal::Scalar(len))) = (args.first(), args.get(1), args.get(2)) else {
            return Err(unsupported("a memset of unexpected arguments", loc));
        };
        let Some(len) = self.constant_value(*len, 8) else { return Err(unsupported("a memset of a run-time length", loc)) };
        if len > 65536 {
            return Err(unsupported(format!("a memset of {len} bytes"), loc));
        }
        // C's memset takes the byte as an int.
        let byte = match byte.as_const() {
            Some(c) => Operand::konst(8, c & 0xff),
            None if self.kir.width(*byte) != 8 => self.kir.resize(cur, *byte, 8, false, span),
            None => *byte,
        };
        let (next, _) = self.through(cur, dst.clone(), None, span, loc, &mut |me, b, dst, doff| {
            let w = Self::chunk(len as u64, me.kir.k.objects[dst].elem_size);
            // The byte replicated over the chunk.
            let bits = (w * 8) as u16;
            let value = match byte.as_const() {
                Some(c) => {
                    let mut v = 0u128;
                    for _ in 0..w {
                        v = (v << 8) | (c & 0xff);
                    }
                    Operand::konst(bits, v)
                }
                None => {
                    let mut acc = if bits == 8 {
                        byte
                    } else {
                        Operand::Value(me.kir.push(b, InstKind::Cast { op: CastOp::ZExt, arg: byte }, bits, span))
                    };
                    let one = acc;
                    for k in 1..w {
                        let sh = me.kir.push(
                            b,
                            InstKind::Bin { op: BinOp::Shl, lhs: one, rhs: Operand::konst(bits, 8 * k as u128) },
                            bits,
                            span,
                        );
                        acc =
                            Operand::Value(me.kir.push(b, InstKind::Bin { op: BinOp::Or, lhs: acc, rhs: Operand::Value(sh) }, bits, span));
                    }
                    acc
                }
            };
            for i in 0..(len as u64 / w as u64) {
                let d_off = me.kir.add_offset(b, doff, Operand::konst(64, i as u128 * w as u128), span);
                me.kir.push(b, InstKind::Store { ptr: syncfix_kir::Pointer { object: dst, offset: d_off }, value, width: w }, 0, span);
            }
            Ok((b, None))
        })?;
        Ok(next)
    }
}
