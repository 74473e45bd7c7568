"""cephx caps: the validator answers exactly as the Pacific monitor does, and templates are valid."""
from __future__ import annotations

import pytest

from cephtui.ceph import caps
from cephtui.ceph.caps import CapsError, cli_caps, parse_caps_list, validate

# Every case below was sent to a real monitor (ceph 16.2.15 pacific, sandbox cluster) as
# `auth caps client.probe SERVICE TEXT`; the third column is the mon's refusal text, or None when
# it accepted the caps. validate(strict=False) must agree on accept/refuse and on the exact text.
MON_VERIFIED: list[tuple[str, str, str | None]] = [
    ('mon', 'allow r', None),
    ('mon', 'allow w', None),
    ('mon', 'allow x', None),
    ('mon', 'allow rw', None),
    ('mon', 'allow rwx', None),
    ('mon', 'allow wx', None),
    ('mon', 'allow rx', None),
    ('mon', 'allow wr', "mon capability parse failed, stopped at 'r' of 'allow wr'"),
    ('mon', 'allow xr', "mon capability parse failed, stopped at 'r' of 'allow xr'"),
    ('mon', 'allow *', None),
    ('mon', 'allow all', None),
    ('mon', 'allow allx', "mon capability parse failed, stopped at 'x' of 'allow allx'"),
    ('mon', 'allow', "mon capability parse failed, stopped at 'allow' of 'allow'"),
    ('mon', 'allow  r', None),
    ('mon', ' allow r', None),
    ('mon', 'allow r ', None),
    ('mon', 'allow r\t', None),
    ('mon', 'allow\tr', None),
    ('mon', 'allow r, allow w', None),
    ('mon', 'allow r ,allow w', None),
    ('mon', 'allow r;allow w', None),
    ('mon', 'allow r ; allow w', None),
    ('mon', 'allow r,', "mon capability parse failed, stopped at ',' of 'allow r,'"),
    ('mon', 'allow r,,allow w', "mon capability parse failed, stopped at ',,allow w' of 'allow r,,allow w'"),
    ('mon', 'allow r\t,allow w', None),
    ('mon', 'allow r\n', None),
    ('mon', '\nallow r', None),
    ('mon', 'allow r\r', "mon capability parse failed, stopped at '\r' of 'allow r\r'"),
    ('mon', '  ', "mon capability parse failed, stopped at '  ' of '  '"),
    ('mon', 'allow r w', "mon capability parse failed, stopped at 'w' of 'allow r w'"),
    ('mon', 'allow rwz', "mon capability parse failed, stopped at 'z' of 'allow rwz'"),
    ('mon', 'ALLOW r', "mon capability parse failed, stopped at 'ALLOW r' of 'ALLOW r'"),
    ('mon', 'allow r network 10.0.0.0/8', None),
    ('mon', 'allow r network zzz', "mon capability parse failed, stopped at 'network zzz' of 'allow r network zzz'"),
    ('mon', 'allow r network 1.2.3.4/99', None),
    ('mon', 'allow r network fe80::/10', None),
    ('mon', 'allow * network 10.0.0.0/8', None),
    ('mon', 'allow rw network', "mon capability parse failed, stopped at 'network' of 'allow rw network'"),
    ('mon', 'allow r  network 10.0.0.0/8', None),
    ('mon', 'profile rbd', None),
    ('mon', 'allow profile rbd', None),
    ('mon', 'profile=rbd', None),
    ('mon', 'profile  rbd', None),
    ('mon', 'profile nosuch', None),
    ('mon', 'profile "rbd"', None),
    ('mon', "profile 'rbd'", None),
    ('mon', 'profile rbd network 10.0.0.0/8', None),
    ('mon', 'profile', "mon capability parse failed, stopped at 'profile' of 'profile'"),
    ('mon', 'profile ', "mon capability parse failed, stopped at 'profile ' of 'profile '"),
    ('mgr', 'allow r', None),
    ('mgr', 'allow w', None),
    ('mgr', 'allow x', None),
    ('mgr', 'allow rw', None),
    ('mgr', 'allow rwx', None),
    ('mgr', 'allow wx', None),
    ('mgr', 'allow rx', None),
    ('mgr', 'allow wr', "mgr capability parse failed, stopped at 'r' of 'allow wr'"),
    ('mgr', 'allow xr', "mgr capability parse failed, stopped at 'r' of 'allow xr'"),
    ('mgr', 'allow *', None),
    ('mgr', 'allow all', None),
    ('mgr', 'allow allx', "mgr capability parse failed, stopped at 'x' of 'allow allx'"),
    ('mgr', 'allow', "mgr capability parse failed, stopped at 'allow' of 'allow'"),
    ('mgr', 'allow  r', None),
    ('mgr', ' allow r', None),
    ('mgr', 'allow r ', None),
    ('mgr', 'allow r\t', None),
    ('mgr', 'allow\tr', None),
    ('mgr', 'allow r, allow w', None),
    ('mgr', 'allow r ,allow w', None),
    ('mgr', 'allow r;allow w', None),
    ('mgr', 'allow r ; allow w', None),
    ('mgr', 'allow r,', "mgr capability parse failed, stopped at ',' of 'allow r,'"),
    ('mgr', 'allow r,,allow w', "mgr capability parse failed, stopped at ',,allow w' of 'allow r,,allow w'"),
    ('mgr', 'allow r\t,allow w', None),
    ('mgr', 'allow r\n', None),
    ('mgr', '\nallow r', None),
    ('mgr', 'allow r\r', "mgr capability parse failed, stopped at '\r' of 'allow r\r'"),
    ('mgr', '  ', "mgr capability parse failed, stopped at '  ' of '  '"),
    ('mgr', 'allow r w', "mgr capability parse failed, stopped at 'w' of 'allow r w'"),
    ('mgr', 'allow rwz', "mgr capability parse failed, stopped at 'z' of 'allow rwz'"),
    ('mgr', 'ALLOW r', "mgr capability parse failed, stopped at 'ALLOW r' of 'ALLOW r'"),
    ('mgr', 'allow r network 10.0.0.0/8', None),
    ('mgr', 'allow r network zzz', "mgr capability parse failed, stopped at 'network zzz' of 'allow r network zzz'"),
    ('mgr', 'allow r network 1.2.3.4/99', None),
    ('mgr', 'allow r network fe80::/10', None),
    ('mgr', 'allow * network 10.0.0.0/8', None),
    ('mgr', 'allow rw network', "mgr capability parse failed, stopped at 'network' of 'allow rw network'"),
    ('mgr', 'allow r  network 10.0.0.0/8', None),
    ('mgr', 'profile rbd', None),
    ('mgr', 'allow profile rbd', None),
    ('mgr', 'profile=rbd', None),
    ('mgr', 'profile  rbd', None),
    ('mgr', 'profile nosuch', "mgr capability parse failed during profile evaluation: unrecognized profile 'nosuch'"),
    ('mgr', 'profile "rbd"', None),
    ('mgr', "profile 'rbd'", None),
    ('mgr', 'profile rbd network 10.0.0.0/8', None),
    ('mgr', 'profile', "mgr capability parse failed, stopped at 'profile' of 'profile'"),
    ('mgr', 'profile ', "mgr capability parse failed, stopped at 'profile ' of 'profile '"),
    ('osd', 'allow r', None),
    ('osd', 'allow w', None),
    ('osd', 'allow x', None),
    ('osd', 'allow rw', None),
    ('osd', 'allow rwx', None),
    ('osd', 'allow wx', None),
    ('osd', 'allow rx', None),
    ('osd', 'allow wr', "osd capability parse failed, stopped at 'r' of 'allow wr'"),
    ('osd', 'allow xr', "osd capability parse failed, stopped at 'r' of 'allow xr'"),
    ('osd', 'allow *', None),
    ('osd', 'allow all', None),
    ('osd', 'allow allx', "osd capability parse failed, stopped at 'x' of 'allow allx'"),
    ('osd', 'allow', "osd capability parse failed, stopped at 'allow' of 'allow'"),
    ('osd', 'allow  r', None),
    ('osd', ' allow r', None),
    ('osd', 'allow r ', None),
    ('osd', 'allow r\t', None),
    ('osd', 'allow\tr', None),
    ('osd', 'allow r, allow w', None),
    ('osd', 'allow r ,allow w', None),
    ('osd', 'allow r;allow w', None),
    ('osd', 'allow r ; allow w', None),
    ('osd', 'allow r,', "osd capability parse failed, stopped at ',' of 'allow r,'"),
    ('osd', 'allow r,,allow w', "osd capability parse failed, stopped at ',,allow w' of 'allow r,,allow w'"),
    ('osd', 'allow r\t,allow w', None),
    ('osd', 'allow r\n', None),
    ('osd', '\nallow r', None),
    ('osd', 'allow r\r', None),
    ('osd', '  ', "osd capability parse failed, stopped at '' of '  '"),
    ('osd', 'allow r w', "osd capability parse failed, stopped at 'w' of 'allow r w'"),
    ('osd', 'allow rwz', "osd capability parse failed, stopped at 'z' of 'allow rwz'"),
    ('osd', 'ALLOW r', "osd capability parse failed, stopped at 'ALLOW r' of 'ALLOW r'"),
    ('osd', 'allow r network 10.0.0.0/8', None),
    ('osd', 'allow r network zzz', "osd capability parse failed, stopped at 'network zzz' of 'allow r network zzz'"),
    ('osd', 'allow r network 1.2.3.4/99', None),
    ('osd', 'allow r network fe80::/10', None),
    ('osd', 'allow * network 10.0.0.0/8', None),
    ('osd', 'allow rw network', "osd capability parse failed, stopped at 'network' of 'allow rw network'"),
    ('osd', 'allow r  network 10.0.0.0/8', None),
    ('osd', 'profile rbd', None),
    ('osd', 'allow profile rbd', "osd capability parse failed, stopped at 'allow profile rbd' of 'allow profile rbd'"),
    ('osd', 'profile=rbd', None),
    ('osd', 'profile  rbd', None),
    ('osd', 'profile nosuch', None),
    ('osd', 'profile "rbd"', None),
    ('osd', "profile 'rbd'", None),
    ('osd', 'profile rbd network 10.0.0.0/8', None),
    ('osd', 'profile', "osd capability parse failed, stopped at 'profile' of 'profile'"),
    ('osd', 'profile ', "osd capability parse failed, stopped at 'profile ' of 'profile '"),
    ('mds', 'allow r', None),
    ('mds', 'allow w', "mds capability parse failed, stopped at 'allow w' of 'allow w'"),
    ('mds', 'allow x', "mds capability parse failed, stopped at 'allow x' of 'allow x'"),
    ('mds', 'allow rw', None),
    ('mds', 'allow rwx', "mds capability parse failed, stopped at 'x' of 'allow rwx'"),
    ('mds', 'allow wx', "mds capability parse failed, stopped at 'allow wx' of 'allow wx'"),
    ('mds', 'allow rx', "mds capability parse failed, stopped at 'x' of 'allow rx'"),
    ('mds', 'allow wr', "mds capability parse failed, stopped at 'allow wr' of 'allow wr'"),
    ('mds', 'allow xr', "mds capability parse failed, stopped at 'allow xr' of 'allow xr'"),
    ('mds', 'allow *', None),
    ('mds', 'allow all', None),
    ('mds', 'allow allx', "mds capability parse failed, stopped at 'x' of 'allow allx'"),
    ('mds', 'allow', None),
    ('mds', 'allow  r', None),
    ('mds', ' allow r', None),
    ('mds', 'allow r ', None),
    ('mds', 'allow r\t', None),
    ('mds', 'allow\tr', None),
    ('mds', 'allow r, allow w', "mds capability parse failed, stopped at ', allow w' of 'allow r, allow w'"),
    ('mds', 'allow r ,allow w', "mds capability parse failed, stopped at ',allow w' of 'allow r ,allow w'"),
    ('mds', 'allow r;allow w', "mds capability parse failed, stopped at ';allow w' of 'allow r;allow w'"),
    ('mds', 'allow r ; allow w', "mds capability parse failed, stopped at '; allow w' of 'allow r ; allow w'"),
    ('mds', 'allow r,', "mds capability parse failed, stopped at ',' of 'allow r,'"),
    ('mds', 'allow r,,allow w', "mds capability parse failed, stopped at ',,allow w' of 'allow r,,allow w'"),
    ('mds', 'allow r\t,allow w', "mds capability parse failed, stopped at ',allow w' of 'allow r\t,allow w'"),
    ('mds', 'allow r\n', None),
    ('mds', '\nallow r', None),
    ('mds', 'allow r\r', None),
    ('mds', '  ', "mds capability parse failed, stopped at '' of '  '"),
    ('mds', 'allow r w', "mds capability parse failed, stopped at 'w' of 'allow r w'"),
    ('mds', 'allow rwz', "mds capability parse failed, stopped at 'z' of 'allow rwz'"),
    ('mds', 'ALLOW r', "mds capability parse failed, stopped at 'ALLOW r' of 'ALLOW r'"),
    ('mds', 'allow r network 10.0.0.0/8', None),
    ('mds', 'allow r network zzz', "mds capability parse failed, stopped at 'network zzz' of 'allow r network zzz'"),
    ('mds', 'allow r network 1.2.3.4/99', None),
    ('mds', 'allow r network fe80::/10', None),
    ('mds', 'allow * network 10.0.0.0/8', None),
    ('mds', 'allow rw network', "mds capability parse failed, stopped at 'network' of 'allow rw network'"),
    ('mds', 'allow r  network 10.0.0.0/8', None),
    ('mds', 'profile rbd', "mds capability parse failed, stopped at 'profile rbd' of 'profile rbd'"),
    ('mds', 'allow profile rbd', "mds capability parse failed, stopped at 'allow profile rbd' of 'allow profile rbd'"),
    ('mds', 'profile=rbd', "mds capability parse failed, stopped at 'profile=rbd' of 'profile=rbd'"),
    ('mds', 'profile  rbd', "mds capability parse failed, stopped at 'profile  rbd' of 'profile  rbd'"),
    ('mds', 'profile nosuch', "mds capability parse failed, stopped at 'profile nosuch' of 'profile nosuch'"),
    ('mds', 'profile "rbd"', 'mds capability parse failed, stopped at \'profile "rbd"\' of \'profile "rbd"\''),
    ('mds', "profile 'rbd'", "mds capability parse failed, stopped at 'profile 'rbd'' of 'profile 'rbd''"),
    ('mds', 'profile rbd network 10.0.0.0/8', "mds capability parse failed, stopped at 'profile rbd network 10.0.0.0/8' of 'profile rbd network 10.0.0.0/8'"),
    ('mds', 'profile', "mds capability parse failed, stopped at 'profile' of 'profile'"),
    ('mds', 'profile ', "mds capability parse failed, stopped at 'profile ' of 'profile '"),
    ('mon', 'allow service osd r', None),
    ('mon', 'allow service=osd rw', None),
    ('mon', 'allow service osd', "mon capability parse failed, stopped at 'allow service osd' of 'allow service osd'"),
    ('mon', 'allow service "osd" rwx', None),
    ('mon', 'allow service osd  r', None),
    ('mon', 'allow command "osd tree"', None),
    ('mon', "allow command 'osd tree'", None),
    ('mon', 'allow command osd tree', "mon capability parse failed, stopped at 'tree' of 'allow command osd tree'"),
    ('mon', 'allow command="osd tree"', None),
    ('mon', 'allow command "osd tree" with format=json', None),
    ('mon', 'allow command "osd tree" with format = json', 'mon capability parse failed, stopped at \'with format = json\' of \'allow command "osd tree" with format = json\''),
    ('mon', 'allow command "osd tree" with format =json', 'mon capability parse failed, stopped at \'with format =json\' of \'allow command "osd tree" with format =json\''),
    ('mon', 'allow command "auth get" with entity prefix client.', None),
    ('mon', 'allow command "auth get" with entity regex ^client', 'mon capability parse failed, stopped at \'with entity regex ^client\' of \'allow command "auth get" with entity regex ^client\''),
    ('mon', 'allow command "auth get" with entity=client.a caps=x', None),
    ('mon', 'allow command "auth get" with entity="client a"', None),
    ('mon', 'allow command "auth get" with', 'mon capability parse failed, stopped at \'with\' of \'allow command "auth get" with\''),
    ('mon', 'allow command ""', 'mon capability parse failed, stopped at \'allow command ""\' of \'allow command ""\''),
    ('mon', 'allow command "osd tree" network 10.0.0.0/8', None),
    ('mon', 'allow command "osd tree" with format=json network 10.0.0.0/8', None),
    ('mon', 'allow command "osd tree" x', 'mon capability parse failed, stopped at \'x\' of \'allow command "osd tree" x\''),
    ('mon', 'allow r fsname=a', None),
    ('mon', 'allow r fsname a', None),
    ('mon', 'allow rw fsname=a', None),
    ('mon', 'allow r fsname=a/b', "mon capability parse failed, stopped at '/b' of 'allow r fsname=a/b'"),
    ('mon', 'allow r fsname=', "mon capability parse failed, stopped at 'fsname=' of 'allow r fsname='"),
    ('mon', 'allow r fsname="a"', 'mon capability parse failed, stopped at \'fsname="a"\' of \'allow r fsname="a"\''),
    ('mon', 'allow r network 10.0.0.0/8 fsname=a', None),
    ('mon', 'allow r fsname=a network 10.0.0.0/8', "mon capability parse failed, stopped at 'network 10.0.0.0/8' of 'allow r fsname=a network 10.0.0.0/8'"),
    ('mon', 'profile rbd fsname=a', "mon capability parse failed, stopped at 'fsname=a' of 'profile rbd fsname=a'"),
    ('mon', 'allow profile osd', None),
    ('mon', 'profile osd', None),
    ('mon', 'profile bootstrap-osd', None),
    ('mon', 'profile simple-rados-client-with-blocklist', None),
    ('mon', 'allow r fsname=a, allow w', None),
    ('mon', 'allow service osd rwx network 10.0.0.0/8', None),
    ('mon', 'profile rbd pool=a', "mon capability parse failed, stopped at 'pool=a' of 'profile rbd pool=a'"),
    ('mon', 'allow module foo r', "mon capability parse failed, stopped at 'allow module foo r' of 'allow module foo r'"),
    ('mgr', 'allow service osd r', None),
    ('mgr', 'allow service osd', "mgr capability parse failed, stopped at 'allow service osd' of 'allow service osd'"),
    ('mgr', 'allow module balancer rw', None),
    ('mgr', 'allow module=balancer r', None),
    ('mgr', 'allow module balancer', "mgr capability parse failed, stopped at 'allow module balancer' of 'allow module balancer'"),
    ('mgr', 'allow module rbd_support with pool=a rw', None),
    ('mgr', 'allow module rbd_support with pool = a rw', None),
    ('mgr', 'allow command "osd tree"', None),
    ('mgr', 'allow command "osd tree" with format = json', None),
    ('mgr', 'allow command "osd tree" with format=json', None),
    ('mgr', 'allow command "osd tree" with format prefix js', None),
    ('mgr', 'profile rbd pool=a', None),
    ('mgr', 'profile rbd pool = a', None),
    ('mgr', 'profile rbd pool=a namespace=b', None),
    ('mgr', 'profile rbd pool=a, profile rbd pool=b', None),
    ('mgr', 'profile rbd foo=bar', "mgr capability parse failed during profile evaluation: profile 'rbd' does not recognize key 'foo'"),
    ('mgr', 'profile rbd-read-only pool=a', None),
    ('mgr', 'profile crash', None),
    ('mgr', 'profile crash pool=a', None),
    ('mgr', 'profile osd', None),
    ('mgr', 'profile mds', None),
    ('mgr', 'profile rgw', "mgr capability parse failed during profile evaluation: unrecognized profile 'rgw'"),
    ('mgr', 'profile read-only', None),
    ('mgr', 'profile read-write', None),
    ('mgr', 'profile mon', "mgr capability parse failed during profile evaluation: unrecognized profile 'mon'"),
    ('mgr', 'allow profile rbd pool=a', None),
    ('mgr', 'profile rbd pool', "mgr capability parse failed, stopped at 'pool' of 'profile rbd pool'"),
    ('mgr', 'profile rbd pool=', "mgr capability parse failed, stopped at 'pool=' of 'profile rbd pool='"),
    ('mgr', 'allow r fsname=a', "mgr capability parse failed, stopped at 'fsname=a' of 'allow r fsname=a'"),
    ('mgr', 'profile rbd pool=a network 10.0.0.0/8', None),
    ('mgr', 'profile rbd pool prefix a', None),
    ('mgr', 'profile nosuch, allow rwz', "mgr capability parse failed, stopped at 'z' of 'profile nosuch, allow rwz'"),
    ('mgr', 'allow rwz, profile nosuch', "mgr capability parse failed, stopped at 'z, profile nosuch' of 'allow rwz, profile nosuch'"),
    ('osd', 'allow class-read', None),
    ('osd', 'allow class-write', None),
    ('osd', 'allow class-read class-write', None),
    ('osd', 'allow class-write class-read', "osd capability parse failed, stopped at 'class-read' of 'allow class-write class-read'"),
    ('osd', 'allow rwx class-read', None),
    ('osd', 'allow r class-read', None),
    ('osd', 'allow * class-read', "osd capability parse failed, stopped at 'class-read' of 'allow * class-read'"),
    ('osd', 'allow rw class-read pool=a', None),
    ('osd', 'allow rw pool=a', None),
    ('osd', 'allow rw pool a', None),
    ('osd', 'allow rw pool=', "osd capability parse failed, stopped at 'pool=' of 'allow rw pool='"),
    ('osd', 'allow rw pool = a', "osd capability parse failed, stopped at 'pool = a' of 'allow rw pool = a'"),
    ('osd', 'allow rw pool="a b"', None),
    ('osd', "allow rw pool=''", "osd capability parse failed, stopped at 'pool=''' of 'allow rw pool='''"),
    ('osd', 'allow rw pool=a namespace=b', None),
    ('osd', 'allow rw pool=a namespace b', None),
    ('osd', 'allow rw namespace=b', None),
    ('osd', 'allow rw namespace=""', None),
    ('osd', 'allow rw namespace=b*', None),
    ('osd', 'allow rw namespace=*', "osd capability parse failed, stopped at 'namespace=*' of 'allow rw namespace=*'"),
    ('osd', 'allow rw namespace=""*', None),
    ('osd', 'allow rw pool=a object_prefix rbd_data', None),
    ('osd', 'allow rw pool=a object_prefix=rbd', "osd capability parse failed, stopped at 'object_prefix=rbd' of 'allow rw pool=a object_prefix=rbd'"),
    ('osd', 'allow rw object_prefix rbd', None),
    ('osd', 'allow rw pool=a namespace=b object_prefix c', None),
    ('osd', 'allow pool=a rw', None),
    ('osd', 'allow pool a rwx', None),
    ('osd', 'allow pool=a namespace=b rw', None),
    ('osd', 'allow rw tag cephfs data=a', None),
    ('osd', 'allow rw tag cephfs data = a', None),
    ('osd', 'allow rw tag cephfs data =a', None),
    ('osd', 'allow rw tag cephfs *=*', None),
    ('osd', 'allow rw tag cephfs all=all', None),
    ('osd', 'allow rw tag cephfs allx=a', "osd capability parse failed, stopped at 'tag cephfs allx=a' of 'allow rw tag cephfs allx=a'"),
    ('osd', 'allow rw tag cephfs data=*', None),
    ('osd', 'allow rw tag cephfs data', "osd capability parse failed, stopped at 'tag cephfs data' of 'allow rw tag cephfs data'"),
    ('osd', 'allow rw tag cephfs=a', "osd capability parse failed, stopped at 'tag cephfs=a' of 'allow rw tag cephfs=a'"),
    ('osd', 'allow rw namespace=b tag cephfs data=a', None),
    ('osd', 'allow rw pool=a tag cephfs data=a', "osd capability parse failed, stopped at 'tag cephfs data=a' of 'allow rw pool=a tag cephfs data=a'"),
    ('osd', 'allow tag cephfs data=a rw', None),
    ('osd', 'allow rwx auid 5', "osd capability parse failed, stopped at 'auid 5' of 'allow rwx auid 5'"),
    ('osd', 'allow rwx auid -5', "osd capability parse failed, stopped at 'auid -5' of 'allow rwx auid -5'"),
    ('osd', 'allow class rbd', None),
    ('osd', 'allow class rbd child_attach', None),
    ('osd', 'allow class rbd child_attach pool=a', None),
    ('osd', 'allow pool=a class rbd', None),
    ('osd', 'allow class', "osd capability parse failed, stopped at 'allow class' of 'allow class'"),
    ('osd', 'allow r pool=a network 10.0.0.0/8', None),
    ('osd', 'profile rbd pool=a', None),
    ('osd', 'profile rbd pool=a namespace=b', None),
    ('osd', 'profile rbd namespace=b', None),
    ('osd', 'profile rbd-read-only pool=a', None),
    ('osd', 'profile rbd pool=a, profile rbd-read-only pool=b', None),
    ('osd', 'profile read-only', None),
    ('osd', 'profile read-write pool=x', None),
    ('osd', 'profile rbd object_prefix a', "osd capability parse failed, stopped at 'object_prefix a' of 'profile rbd object_prefix a'"),
    ('osd', 'allow rwx pool=a,allow r', None),
    ('osd', 'allow rwx pool=a , allow r', None),
    ('osd', 'allow rwx pool=a;  allow r', None),
    ('osd', ' allow r ,', "osd capability parse failed, stopped at ',' of ' allow r ,'"),
    ('osd', 'allow r\t;\tallow w', None),
    ('osd', 'allow rw pool=a\n', None),
    ('osd', '\tallow r', None),
    ('osd', 'allow r pool=a\t,\tallow w', None),
    ('osd', 'allow class-read object_prefix rbd_children', None),
    ('osd', 'allow rxw', "osd capability parse failed, stopped at 'w' of 'allow rxw'"),
    ('osd', 'allow r x', "osd capability parse failed, stopped at 'x' of 'allow r x'"),
    ('osd', 'allow r class-read x', "osd capability parse failed, stopped at 'x' of 'allow r class-read x'"),
    ('osd', 'allow rw tag cephfs data=a network 10.0.0.0/8', None),
    ('osd', 'allow rw pool=a, allow rw pool=', "osd capability parse failed, stopped at 'pool=' of 'allow rw pool=a, allow rw pool='"),
    ('osd', "allow rw pool='a'", None),
    ('osd', 'allow rw pool=""', 'osd capability parse failed, stopped at \'pool=""\' of \'allow rw pool=""\''),
    ('mds', 'allow rws', None),
    ('mds', 'allow rwp', None),
    ('mds', 'allow rwps', None),
    ('mds', 'allow rwsp', "mds capability parse failed, stopped at 'p' of 'allow rwsp'"),
    ('mds', 'allow rwf', None),
    ('mds', 'allow rwfp', None),
    ('mds', 'allow rwfs', None),
    ('mds', 'allow rwfps', None),
    ('mds', 'allow rp', "mds capability parse failed, stopped at 'p' of 'allow rp'"),
    ('mds', 'allow rs', "mds capability parse failed, stopped at 's' of 'allow rs'"),
    ('mds', ' allow', "mds capability parse failed, stopped at 'allow' of ' allow'"),
    ('mds', 'allow ', "mds capability parse failed, stopped at 'allow ' of 'allow '"),
    ('mds', 'allow r path=/a', None),
    ('mds', 'allow rw path=/a/b', None),
    ('mds', 'allow rw path="/a b"', None),
    ('mds', "allow rw path=''", None),
    ('mds', 'allow rw path = /a', "mds capability parse failed, stopped at 'path = /a' of 'allow rw path = /a'"),
    ('mds', 'allow rw path /a', "mds capability parse failed, stopped at 'path /a' of 'allow rw path /a'"),
    ('mds', 'allow rw path=', "mds capability parse failed, stopped at 'path=' of 'allow rw path='"),
    ('mds', 'allow rw uid=1000', None),
    ('mds', 'allow rw uid=1000 gids=1,2', None),
    ('mds', 'allow rw uid=1000 gids=1, 2', "mds capability parse failed, stopped at ', 2' of 'allow rw uid=1000 gids=1, 2'"),
    ('mds', 'allow rw uid=-1', "mds capability parse failed, stopped at 'uid=-1' of 'allow rw uid=-1'"),
    ('mds', 'allow rw uid=4294967295', None),
    ('mds', 'allow rw uid=4294967296', "mds capability parse failed, stopped at 'uid=4294967296' of 'allow rw uid=4294967296'"),
    ('mds', 'allow rw path=/a uid=1 gids=2', None),
    ('mds', 'allow rw uid=1 path=/a', "mds capability parse failed, stopped at 'path=/a' of 'allow rw uid=1 path=/a'"),
    ('mds', 'allow rw gids=1', "mds capability parse failed, stopped at 'gids=1' of 'allow rw gids=1'"),
    ('mds', 'allow rw fsname=a', None),
    ('mds', 'allow rw fsname a', "mds capability parse failed, stopped at 'fsname a' of 'allow rw fsname a'"),
    ('mds', 'allow rw fsname=a path=/p', None),
    ('mds', 'allow rw path=/p fsname=a', "mds capability parse failed, stopped at 'fsname=a' of 'allow rw path=/p fsname=a'"),
    ('mds', 'allow rw fsname=a root_squash', None),
    ('mds', 'allow rw fsname=a path=/p root_squash', None),
    ('mds', 'allow rw path=/p root_squash', None),
    ('mds', 'allow rw root_squash', None),
    ('mds', 'allow rw root_squash path=/p', "mds capability parse failed, stopped at 'path=/p' of 'allow rw root_squash path=/p'"),
    ('mds', 'allow rw fsname=a uid=1', "mds capability parse failed, stopped at 'uid=1' of 'allow rw fsname=a uid=1'"),
    ('mds', 'allow rw uid=1 fsname=a', "mds capability parse failed, stopped at 'fsname=a' of 'allow rw uid=1 fsname=a'"),
    ('mds', 'allow rw fsname=a/b', "mds capability parse failed, stopped at '/b' of 'allow rw fsname=a/b'"),
    ('mds', 'allow rw fsname=', "mds capability parse failed, stopped at 'fsname=' of 'allow rw fsname='"),
    ('mds', 'allow rw fsname="a"', 'mds capability parse failed, stopped at \'fsname="a"\' of \'allow rw fsname="a"\''),
    ('mds', 'allow r, allow rw path=/a', None),
    ('mds', 'allow r;allow rw path=/a', None),
    ('mds', 'allow rw path=/a network 10.0.0.0/8', None),
    ('mds', 'allow rw fsname=a path=/p root_squash network 10.0.0.0/8', None),
    ('mds', 'allow r\t, allow rw', "mds capability parse failed, stopped at ', allow rw' of 'allow r\t, allow rw'"),
    ('mds', 'allow rw uid=1 gids=1,2 network 10.0.0.0/8', None),
    ('mds', 'allow rw uid=01', None),
    ('mds', 'allow rw uid=+1', "mds capability parse failed, stopped at 'uid=+1' of 'allow rw uid=+1'"),
    ('mds', 'allow * path=/a', None),
    ('mds', 'allow all path=/a', None),
    ('mds', 'allow rw path=/a root_squash uid=1', "mds capability parse failed, stopped at 'uid=1' of 'allow rw path=/a root_squash uid=1'"),
    ('osd', 'allow all class-read', "osd capability parse failed, stopped at 'class-read' of 'allow all class-read'"),
    ('osd', 'allow class-read rwx', "osd capability parse failed, stopped at 'rwx' of 'allow class-read rwx'"),
    ('osd', 'allow rwx class-write class-read', "osd capability parse failed, stopped at 'class-read' of 'allow rwx class-write class-read'"),
    ('osd', 'allow r class-write', None),
    ('osd', 'allow class-read class-read', "osd capability parse failed, stopped at 'class-read' of 'allow class-read class-read'"),
    ('osd', 'allow rw pool=a object_prefix', "osd capability parse failed, stopped at 'object_prefix' of 'allow rw pool=a object_prefix'"),
    ('osd', 'allow rw pool=a object_prefix "a b"', None),
    ('osd', 'allow  rw  pool=a', None),
    ('osd', 'allow rw pool=a  namespace=b', None),
    ('osd', 'allow r pool=a network 10.0.0.0/8 , allow w', None),
    ('osd', 'allow r network 10.0.0.0/8 pool=a', "osd capability parse failed, stopped at 'pool=a' of 'allow r network 10.0.0.0/8 pool=a'"),
    ('osd', 'profile=rbd pool=a', None),
    ('osd', 'profile rbd pool a', None),
    ('osd', 'profile rbd pool=a network 10.0.0.0/8', None),
    ('osd', 'allow rw tag cephfs data=a, allow r tag rbd *=*', None),
    ('osd', 'allow rwx tag rgw *=*', None),
    ('osd', "allow rw tag 'cephfs' 'data'='a'", None),
    ('osd', 'allow r class-read pool=a object_prefix rbd', None),
    ('osd', 'allow pool=a class-read', None),
    ('mgr', 'profile rbd pool=a foo=b', "mgr capability parse failed during profile evaluation: profile 'rbd' does not recognize key 'foo'"),
    ('mgr', 'profile rbd namespace=b', None),
    ('mgr', 'profile "rbd" pool="a b"', None),
    ('mgr', "allow module 'rbd_support' r", None),
    ('mgr', 'allow module=balancer with a=b r', None),
    ('mgr', 'profile crash foo=bar', None),
    ('mgr', 'allow service mgr r network 10.0.0.0/8', None),
    ('mgr', 'allow command "osd tree" with format regex ^j', 'mgr capability parse failed, stopped at \'with format regex ^j\' of \'allow command "osd tree" with format regex ^j\''),
    ('mgr', 'allow command "osd tree" with format regex js', None),
    ('mon', 'allow rwx, allow command "osd tree"; profile rbd', None),
    ('mon', 'allow command=osd', None),
    ('mon', 'allow command "osd tree" with a=b c prefix d', None),
    ('mon', 'allow service osd r fsname=a', "mon capability parse failed, stopped at 'fsname=a' of 'allow service osd r fsname=a'"),
    ('mon', 'allow * fsname=a', None),
    ('osd', '  bogus', "osd capability parse failed, stopped at 'bogus' of '  bogus'"),
    ('mon', 'allow command "osd pool get" with pool="my pool" var=size', None),
    ('osd', 'allow rw pool="my pool" namespace=""', None),
    ('mds', "allow rw path='/home/a b'", None),
    ('osd', 'allow rw pool=a, profile rdb pool=b', None),
    ('mgr', 'profile rbd pool=a foo=b', "mgr capability parse failed during profile evaluation: profile 'rbd' does not recognize key 'foo'"),
]


@pytest.mark.parametrize("service,text,mon_says", MON_VERIFIED)
def test_agrees_with_the_pacific_monitor(service: str, text: str, mon_says: str | None) -> None:
    if mon_says is None:
        validate(service, text, strict=False)
        return
    with pytest.raises(CapsError) as info:
        validate(service, text, strict=False)
    # mgr's profile-evaluation refusals add the list of known profiles after the mon's own words
    assert str(info.value) == mon_says or str(info.value).startswith(mon_says + " (known")


def test_error_carries_service_text_position_and_pointer() -> None:
    with pytest.raises(CapsError) as info:
        validate("osd", "allow rwz")
    e = info.value
    assert (e.service, e.text, e.position) == ("osd", "allow rwz", 8)
    assert str(e) == "osd capability parse failed, stopped at 'z' of 'allow rwz'"
    assert e.pointer() == "allow rwz\n        ^"
    assert isinstance(e, ValueError)


@pytest.mark.parametrize("service,text,position", [
    ("mon", "allow rwz", 8),
    ("mgr", "allow rwz", 8),
    ("mds", "allow rwz", 8),
    ("osd", "allow rw pool=", 9),  # the value is missing: the grant ends before " pool="
    ("osd", "allow rw pool=a, allow rw pool=", 26),
    ("mon", "allow command osd tree", 18),  # a command with a space must be quoted
    ("mds", "allow rw path=/p fsname=a", 17),  # fsname must come first
    ("osd", "  bogus", 2),  # osd/mds skip leading whitespace before failing
    ("mon", "", 0),
])
def test_stop_positions(service: str, text: str, position: int) -> None:
    with pytest.raises(CapsError) as info:
        validate(service, text)
    assert info.value.position == position


def test_empty_caps_are_refused_like_the_mon_does() -> None:
    with pytest.raises(CapsError, match="stopped at end of ''"):
        validate("mon", "")
    with pytest.raises(CapsError, match="stopped at '' of ''"):
        validate("osd", "")


def test_unknown_service() -> None:
    with pytest.raises(CapsError, match="unknown cap type 'client'"):
        validate("client", "allow r")


def test_strict_refuses_profiles_that_grant_nothing_naming_the_known_ones() -> None:
    # The mon and OSD grammars accept any profile name (verified above: 'profile nosuch' is accepted).
    validate("mon", "profile nosuch", strict=False)
    with pytest.raises(CapsError) as info:
        validate("mon", "profile nosuch")
    assert "unknown mon profile 'nosuch'" in str(info.value) and "bootstrap-osd" in str(info.value)
    assert info.value.position == len("profile ")
    with pytest.raises(CapsError, match="known: read-only, read-write, rbd, rbd-read-only"):
        validate("osd", "allow rw pool=a, profile rdb pool=b")
    # mgr refuses unknown profiles itself; we add the list
    with pytest.raises(CapsError, match=r"unrecognized profile 'nosuch' \(known: read-only"):
        validate("mgr", "profile nosuch", strict=False)
    for name in caps.MON_PROFILES:
        validate("mon", f"profile {name}")
    for name in caps.OSD_PROFILES:
        validate("osd", f"profile {name} pool=x")
    for name in caps.MGR_PROFILES:
        validate("mgr", f"profile {name}")
    validate("mon", "profile 'rbd'")  # quoted names are compared unquoted


def test_mgr_rbd_profile_keys() -> None:
    validate("mgr", "profile rbd pool=a namespace=b")
    with pytest.raises(CapsError, match="profile 'rbd' does not recognize key 'foo'"):
        validate("mgr", "profile rbd pool=a foo=b")


def test_quoted_strings() -> None:
    validate("mon", 'allow command "osd pool get" with pool="my pool" var=size')
    validate("mon", "allow command 'osd tree'")
    validate("osd", 'allow rw pool="my pool" namespace=""')
    validate("mds", "allow rw path='/home/a b'")
    with pytest.raises(CapsError):
        validate("mon", 'allow command ""')  # empty quoted strings are not a str


def test_is_valid_and_parse_caps_list() -> None:
    assert caps.is_valid("osd", "allow rw pool=a") and not caps.is_valid("osd", "allow rw pool=")
    parse_caps_list({"mon": "allow r", "osd": "allow rw pool=x"})
    with pytest.raises(CapsError) as info:
        parse_caps_list({"mon": "allow r", "mds": "allow w"})
    assert info.value.service == "mds"


def test_cli_caps_order() -> None:
    assert cli_caps({"osd": "allow rw pool=x", "mds": "allow", "mon": "allow r", "mgr": "allow r"}) == [
        "mon", "allow r", "mgr", "allow r", "osd", "allow rw pool=x", "mds", "allow"]
    assert cli_caps({"osd": "allow rw pool=x", "mon": "allow r"}) == ["mon", "allow r", "osd", "allow rw pool=x"]


# Templates: each output was also sent to the Pacific mon with `auth caps` and read back unchanged,
# and the CephFS one matches what `ceph fs authorize cfs client.x /p rw` granted there.

def test_rbd_client() -> None:
    assert caps.rbd_client(["a", "b"]) == {
        "mon": "profile rbd", "osd": "profile rbd pool=a, profile rbd pool=b",
        "mgr": "profile rbd pool=a, profile rbd pool=b"}
    assert caps.rbd_client() == {"mon": "profile rbd", "osd": "profile rbd", "mgr": "profile rbd"}
    ro = caps.rbd_client(["vms"], ["images"])
    assert ro["osd"] == "profile rbd pool=vms, profile rbd-read-only pool=images"
    assert caps.rbd_client(["we ird"])["osd"] == 'profile rbd pool="we ird"'


def test_cephfs_client_matches_fs_authorize() -> None:
    assert caps.cephfs_client("cfs", "/p") == {
        "mon": "allow r fsname=cfs", "osd": "allow rw tag cephfs data=cfs", "mds": "allow rw fsname=cfs path=/p"}
    assert caps.cephfs_client("cfs")["mds"] == "allow rw fsname=cfs"  # "/" adds no path
    assert caps.cephfs_client("cfs", "/", write=False, root_squash=True) == {
        "mon": "allow r fsname=cfs", "osd": "allow r tag cephfs data=cfs", "mds": "allow r fsname=cfs root_squash"}
    assert caps.cephfs_client("cfs", "/a b")["mds"] == 'allow rw fsname=cfs path="/a b"'
    with pytest.raises(ValueError):
        caps.cephfs_client("bad/name")
    with pytest.raises(ValueError):
        caps.cephfs_client("cfs", "relative")


@pytest.mark.parametrize("template", [
    caps.rbd_client(["a", "b"]), caps.rbd_client(), caps.cephfs_client("fs1", "/x"),
    caps.rgw_gateway(), caps.read_only_monitoring(),
])
def test_every_template_validates(template: dict[str, str]) -> None:
    parse_caps_list(template)


def test_read_only_monitoring() -> None:
    assert caps.read_only_monitoring() == {"mon": "allow r", "mgr": "allow r"}


def test_pure_module() -> None:
    import ast
    from pathlib import Path
    tree = ast.parse(Path(caps.__file__).read_text())
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not names & {"textual", "rich"}


# The MDS cases where Reef's (18.2.7) and Tentacle's (20.2.4) monitors answer differently from Pacific's,
# as they answered (tests/cluster/test_caps_monitor.py sends the whole corpus to whichever release runs).
REEF_MDS: list[tuple[str, str | None]] = [
    ("allow rw gids=1", None),
    ("allow rw fsname=a uid=1", None),
    ("allow rw path=/a root_squash uid=1", None),
    ("allow w", caps.MDS_PERM_FLAGS),
    ("allow r, allow w", caps.MDS_PERM_FLAGS),
    ("allow profile rbd", caps.MDS_PERM_FLAGS),
    ("allow ", caps.MDS_PERM_FLAGS),
    ("allow rwz", "mds capability parse failed, stopped at 'z' of 'allow rwz'"),
]


@pytest.mark.parametrize("text,mon_says", REEF_MDS)
def test_mds_grammar_of_reef_and_tentacle(text: str, mon_says: str | None) -> None:
    for release in (caps.REEF, caps.TENTACLE):
        expected = mon_says
        if release == caps.TENTACLE and mon_says == caps.MDS_PERM_FLAGS:
            expected = caps.MDS_PERM_FLAGS_TENTACLE
        if expected is None:
            validate("mds", text, strict=False, release=release)
            continue
        with pytest.raises(CapsError) as info:
            validate("mds", text, strict=False, release=release)
        assert str(info.value) == expected
    if mon_says is None:  # Pacific refuses what Reef added
        with pytest.raises(CapsError):
            validate("mds", text, strict=False)
